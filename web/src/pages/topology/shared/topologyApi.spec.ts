import { expect, it } from 'vitest';
import { wireQuery } from './topologyApi';

it('writes lists comma-separated and leaves out what is unset', () => {
  expect(wireQuery({})).toEqual({});
  expect(
    wireQuery({ status: ['healthy', 'warning'], type: [], labels: ['app=web', 'tier=1'], owner: '', team: 'sre', hidden: false, depth: 0 }),
  ).toEqual({ status: 'healthy,warning', labels: 'app=web,tier=1', team: 'sre', hidden: false, depth: 0 });
});
