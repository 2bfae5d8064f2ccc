import { expect, it } from 'vitest';
import { ancestorIds, breadcrumbTrail } from './breadcrumbs';

it('reads the ancestors from the path, root first', () => {
  expect(ancestorIds('a.b.c')).toEqual(['a', 'b', 'c']);
  expect(ancestorIds('')).toEqual([]);
  expect(ancestorIds(null)).toEqual([]);
  expect(ancestorIds(undefined)).toEqual([]);
});

it('never counts the component itself, empty segments or repeats', () => {
  expect(ancestorIds('a..b.self', 'self')).toEqual(['a', 'b']);
  expect(ancestorIds('a.b.a')).toEqual(['a', 'b']);
});

it('orders the trail by the path, whatever order the rows come in', () => {
  const rows = [
    { id: 'c', name: 'pod' },
    { id: 'a', name: 'cluster', icon: 'k8s' },
    { id: 'b', name: 'namespace' },
  ];
  expect(breadcrumbTrail(['a', 'b', 'c'], rows).map((c) => c.name)).toEqual(['cluster', 'namespace', 'pod']);
});

it('leaves out ancestors the caller cannot read', () => {
  expect(breadcrumbTrail(['a', 'b', 'c'], [{ id: 'c', name: 'pod' }])).toEqual([{ id: 'c', name: 'pod' }]);
});
