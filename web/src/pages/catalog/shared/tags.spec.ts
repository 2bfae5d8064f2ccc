import { expect, test } from 'vitest';
import { sortTags } from './tags';

test('account, namespace and name come first, then keys alphabetically', () => {
  expect(sortTags({ zone: 'a', name: 'web', cluster: 'c1', namespace: 'prod', account: '42' })).toEqual([
    ['account', '42'],
    ['namespace', 'prod'],
    ['name', 'web'],
    ['cluster', 'c1'],
    ['zone', 'a'],
  ]);
});

test('no tags give no chips', () => {
  expect(sortTags(null)).toEqual([]);
});
