import { expect, it } from 'vitest';
import { ALL, searchFilter, searchNumber, withFilterChanges, withSearchChanges } from './searchChanges';

it('sets and removes parameters, back to the first page unless paging', () => {
  const current = new URLSearchParams('status=open&page=3&x=1');
  expect(withSearchChanges(current, { status: '', severity: 'high' }).toString()).toBe('x=1&severity=high');
  expect(withSearchChanges(current, { page: 4 }, true).toString()).toBe('status=open&page=4&x=1');
});

it("leaves a filter set to 'All' out, and reads filters and numbers back", () => {
  const current = new URLSearchParams('status=open&page=3');
  expect(withFilterChanges(current, { status: ALL, type: 'x' }).toString()).toBe('type=x');
  const search = new URLSearchParams('a=all&b=%20v%20&page=0&size=20');
  expect([searchFilter(search, 'a'), searchFilter(search, 'b'), searchFilter(search, 'c')]).toEqual([undefined, 'v', undefined]);
  expect([searchNumber(search, 'page', 1), searchNumber(search, 'size', 50)]).toEqual([1, 20]);
});
