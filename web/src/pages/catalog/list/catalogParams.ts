/** The catalog list's state, kept in its URL. Parameters: q (the search box),
 * type, health, status, label and tag (repeated; labels and tags as
 * `key=value`), agent (an agent id), showDeleted (true or false; the
 * preference when absent), sortBy, sortDesc, pageIndex (from 0), pageSize
 * (the preference when absent). Defaults are left out of the URL. */
import { PAGE_SIZES } from '../../../app/preferences';

export const SORTABLE = [
  'name',
  'type',
  'health',
  'status',
  'created_at',
  'updated_at',
  'cost_per_minute',
  'cost_total_1d',
  'cost_total_7d',
  'cost_total_30d',
] as const;
export type SortColumn = (typeof SORTABLE)[number];

export const HEALTHS = ['healthy', 'unhealthy', 'warning', 'unknown'] as const;

export interface CatalogParams {
  q: string;
  types: string[];
  health: string[];
  status: string[];
  agent?: string;
  labels: string[];
  tags: string[];
  /** Unset: the show-deleted preference. */
  showDeleted?: boolean;
  sortBy: SortColumn;
  sortDesc: boolean;
  pageIndex: number;
  /** Unset: the page-size preference. */
  pageSize?: number;
}

export const DEFAULT_SORT: { sortBy: SortColumn; sortDesc: boolean } = { sortBy: 'name', sortDesc: false };

const LISTS = { types: 'type', health: 'health', status: 'status', labels: 'label', tags: 'tag' } as const;

function list(search: URLSearchParams, name: string): string[] {
  return [...new Set(search.getAll(name).filter(Boolean))];
}

export function parseCatalogParams(search: URLSearchParams): CatalogParams {
  const sortBy = search.get('sortBy');
  const pageIndex = Number(search.get('pageIndex') ?? 0);
  const pageSize = Number(search.get('pageSize'));
  const showDeleted = search.get('showDeleted');
  return {
    q: search.get('q') ?? '',
    types: list(search, LISTS.types),
    health: list(search, LISTS.health).filter((h) => (HEALTHS as readonly string[]).includes(h)),
    status: list(search, LISTS.status),
    agent: search.get('agent') || undefined,
    labels: list(search, LISTS.labels).filter((l) => l.includes('=')),
    tags: list(search, LISTS.tags).filter((t) => t.includes('=')),
    showDeleted: showDeleted === 'true' ? true : showDeleted === 'false' ? false : undefined,
    sortBy: (SORTABLE as readonly (string | null)[]).includes(sortBy) ? (sortBy as SortColumn) : DEFAULT_SORT.sortBy,
    sortDesc: search.get('sortDesc') === 'true',
    pageIndex: Number.isInteger(pageIndex) && pageIndex >= 0 ? pageIndex : 0,
    pageSize: (PAGE_SIZES as readonly number[]).includes(pageSize) ? pageSize : undefined,
  };
}

/** `search` with `patch` written in; unless only paging changes, back to the first page. */
export function withCatalogParams(search: URLSearchParams, patch: Partial<CatalogParams>): URLSearchParams {
  const next = new URLSearchParams(search);
  for (const [key, value] of Object.entries(patch) as [keyof CatalogParams, unknown][]) {
    const name = key in LISTS ? LISTS[key as keyof typeof LISTS] : key;
    next.delete(name);
    if (Array.isArray(value)) for (const v of value as string[]) next.append(name, v);
    else if (value === undefined || value === '') continue;
    else if (key === 'sortBy' && value === DEFAULT_SORT.sortBy) continue;
    else if (key === 'sortDesc' && value === false) continue;
    else if (key === 'pageIndex' && value === 0) continue;
    else next.set(name, String(value));
  }
  if (!('pageIndex' in patch)) next.delete('pageIndex');
  return next;
}
