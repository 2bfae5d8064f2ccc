import { expect, it } from 'vitest';
import { parseSort, splitList, writeSort } from './listParams';

const SORTS = ['name', 'created_at'] as const;

it('reads a sort, and the fallback for none or an unknown column', () => {
  expect(parseSort('name', SORTS, '-created_at')).toEqual({ sortBy: 'name', sortDesc: false });
  expect(parseSort('-name', SORTS, '-created_at')).toEqual({ sortBy: 'name', sortDesc: true });
  expect(parseSort(null, SORTS, '-created_at')).toEqual({ sortBy: 'created_at', sortDesc: true });
  expect(parseSort('-size', SORTS, '-created_at')).toEqual({ sortBy: 'created_at', sortDesc: true });
});

it('writes a sort over the current one, leaving the default out', () => {
  const next = new URLSearchParams('sortBy=name');
  writeSort(next, 'sortBy', { sortBy: 'name', sortDesc: false }, { sortDesc: true }, '-created_at');
  expect(next.get('sortBy')).toBe('-name');
  writeSort(next, 'sortBy', { sortBy: 'name', sortDesc: true }, { sortBy: 'created_at' }, '-created_at');
  expect(next.has('sortBy')).toBe(false);
  writeSort(next, 'sortBy', { sortBy: 'name', sortDesc: true }, {}, '-created_at');
  expect(next.has('sortBy')).toBe(false);
});

it('splits lists', () => {
  expect(splitList(' a, b,,c ')).toEqual(['a', 'b', 'c']);
  expect(splitList(null)).toEqual([]);
});
