import { PAGE_SIZES } from '../../app/preferences';
import { searchNumber } from '../../lib/searchChanges';

/** The permissions list's page, from the URL: `pageIndex` from 0 and `pageSize`. */
export interface PermissionsPage {
  pageIndex: number;
  pageSize: number;
}

export const DEFAULT_PAGE_SIZE = PAGE_SIZES[0];

export function parsePermissionsPage(search: URLSearchParams): PermissionsPage {
  const size = searchNumber(search, 'pageSize', DEFAULT_PAGE_SIZE);
  return {
    // searchNumber reads positive numbers: a page index of 0 is the default anyway.
    pageIndex: searchNumber(search, 'pageIndex', 0),
    pageSize: (PAGE_SIZES as readonly number[]).includes(size) ? size : DEFAULT_PAGE_SIZE,
  };
}

/** The data API's limit and offset of a page. */
export function pageWindow({ pageIndex, pageSize }: PermissionsPage): { limit: number; offset: number } {
  return { limit: pageSize, offset: pageIndex * pageSize };
}
