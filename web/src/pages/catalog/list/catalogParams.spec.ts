import { expect, test } from 'vitest';
import { parseCatalogParams, withCatalogParams } from './catalogParams';

const parse = (text: string) => parseCatalogParams(new URLSearchParams(text));

test('defaults: no filters, by name ascending, first page, the preferences', () => {
  expect(parse('')).toEqual({
    q: '',
    types: [],
    health: [],
    status: [],
    agent: undefined,
    labels: [],
    tags: [],
    showDeleted: undefined,
    sortBy: 'name',
    sortDesc: false,
    pageIndex: 0,
    pageSize: undefined,
  });
});

test('repeated lists, show deleted, sort and page from the URL; bad values dropped', () => {
  const params = parse(
    'type=A&type=B&health=healthy&health=bogus&tag=env=prod&tag=noequals&showDeleted=false&sortBy=updated_at&sortDesc=true&pageIndex=2&pageSize=100',
  );
  expect(params.types).toEqual(['A', 'B']);
  expect(params.health).toEqual(['healthy']);
  expect(params.tags).toEqual(['env=prod']);
  expect(params.showDeleted).toBe(false);
  expect([params.sortBy, params.sortDesc, params.pageIndex, params.pageSize]).toEqual(['updated_at', true, 2, 100]);
  expect(parse('sortBy=config&pageIndex=-1&pageSize=7')).toMatchObject({ sortBy: 'name', pageIndex: 0, pageSize: undefined });
});

test('a filter change goes back to the first page; paging keeps the filters', () => {
  const start = new URLSearchParams('type=A&pageIndex=3');
  expect(withCatalogParams(start, { health: ['unhealthy', 'warning'] }).toString()).toBe('type=A&health=unhealthy&health=warning');
  expect(withCatalogParams(start, { pageIndex: 4, pageSize: 200 }).toString()).toBe('type=A&pageIndex=4&pageSize=200');
});

test('defaults are left out of the URL', () => {
  const start = new URLSearchParams('q=x&sortBy=type&sortDesc=true&agent=a');
  expect(withCatalogParams(start, { q: '', sortBy: 'name', sortDesc: false, agent: undefined }).toString()).toBe('');
  expect(withCatalogParams(start, { sortBy: 'name', sortDesc: true }).toString()).toBe('q=x&agent=a&sortDesc=true');
});
