import { expect, it } from 'vitest';
import { withSearchChanges } from './searchChanges';

it('sets and removes parameters, back to the first page unless paging', () => {
  const current = new URLSearchParams('status=open&page=3&x=1');
  expect(withSearchChanges(current, { status: '', severity: 'high' }).toString()).toBe('x=1&severity=high');
  expect(withSearchChanges(current, { page: 4 }, true).toString()).toBe('status=open&page=4&x=1');
});
