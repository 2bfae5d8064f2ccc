import { expect, it } from 'vitest';
import { pageWindow, parsePermissionsPage } from './permissionsPage';

it('reads the page from the URL, the first page of 50 by default', () => {
  expect(parsePermissionsPage(new URLSearchParams())).toEqual({ pageIndex: 0, pageSize: 50 });
  expect(parsePermissionsPage(new URLSearchParams('pageIndex=2&pageSize=100'))).toEqual({ pageIndex: 2, pageSize: 100 });
  expect(parsePermissionsPage(new URLSearchParams('pageIndex=-1&pageSize=7'))).toEqual({ pageIndex: 0, pageSize: 50 });
});

it('asks the data API for that window', () => {
  expect(pageWindow({ pageIndex: 2, pageSize: 100 })).toEqual({ limit: 100, offset: 200 });
});
