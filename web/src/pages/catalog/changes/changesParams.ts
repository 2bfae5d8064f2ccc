/** The changes feed's state, kept in its URL query (decision 60), and the
 * search it sends (`POST /api/catalog/changes`). Lists are comma-separated;
 * parameters at their default are left out of the URL. The time range has
 * the shared picker's own parameters (rangeType, range, from, to, ...). */
import type { Schemas } from '../../../api/client';
import type { Instants, TimeRange } from '../../../components/timerange/timeRange';
import { parseSort, sortText, splitList, writeSort } from '../shared/listParams';

export type ChangesRequest = Schemas['ChangesRequest'];
export type Recursive = NonNullable<ChangesRequest['recursive']>;

export const RECURSIVE: readonly Recursive[] = ['none', 'downstream', 'upstream', 'all'];
/** Severities a change is written with (Mission Control's change severities). */
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
/** The spec's page sizes up to the search's largest page (500). */
export const PAGE_SIZES = [5, 10, 25, 50, 100, 150, 200, 250, 300, 500] as const;
export const DEFAULT_SORT = '-created_at';
export const DEFAULT_DEPTH = 5;
export const MAX_DEPTH = 20;
export const DEFAULT_TIME_RANGE: TimeRange = { type: 'relative', range: 'now-7d' };

/** Columns the search sorts by. */
export const SORTS = ['created_at', 'first_observed', 'count', 'severity', 'change_type', 'summary', 'source', 'name', 'type'] as const;
export type SortColumn = (typeof SORTS)[number];

export interface ChangesParams {
  configTypes: string[];
  changeTypes: string[];
  severities: string[];
  /** Sources as typed: a comma-separated list. */
  source: string;
  createdBy: string;
  summary: string;
  /** `key=value,key2=value2` as typed. */
  tags: string;
  recursive: Recursive;
  depth: number;
  /** Unset: the show-deleted preference decides. */
  includeDeleted?: boolean;
  sortBy: SortColumn;
  sortDesc: boolean;
  page: number;
  /** Unset: the page-size preference decides. */
  pageSize?: number;
  /** The change whose details are open. */
  change?: string;
}

/** The URL parameter of each field. */
const PARAM: Record<Exclude<keyof ChangesParams, 'sortBy' | 'sortDesc'>, string> = {
  configTypes: 'configType',
  changeTypes: 'changeType',
  severities: 'severity',
  source: 'source',
  createdBy: 'createdBy',
  summary: 'summary',
  tags: 'tags',
  recursive: 'recursive',
  depth: 'depth',
  includeDeleted: 'includeDeleted',
  page: 'page',
  pageSize: 'pageSize',
  change: 'change',
};
const SORT_PARAM = 'sortBy';

/** Every parameter the feed keeps, for callers that reset them. */
export const CHANGES_PARAMS: readonly string[] = [...Object.values(PARAM), SORT_PARAM];

function wholeNumber(text: string | null, min: number, max: number): number | undefined {
  const n = Number(text ?? undefined);
  return Number.isInteger(n) && n >= min && n <= max ? n : undefined;
}

export function parseChangesParams(search: URLSearchParams): ChangesParams {
  const get = (key: keyof typeof PARAM) => search.get(PARAM[key]);
  const recursive = get('recursive');
  const includeDeleted = get('includeDeleted');
  return {
    configTypes: splitList(get('configTypes')),
    changeTypes: splitList(get('changeTypes')),
    severities: splitList(get('severities')),
    source: get('source') ?? '',
    createdBy: get('createdBy') ?? '',
    summary: get('summary') ?? '',
    tags: get('tags') ?? '',
    recursive: RECURSIVE.includes(recursive as Recursive) ? (recursive as Recursive) : 'none',
    depth: wholeNumber(get('depth'), 0, MAX_DEPTH) ?? DEFAULT_DEPTH,
    includeDeleted: includeDeleted === 'true' ? true : includeDeleted === 'false' ? false : undefined,
    ...parseSort(search.get(SORT_PARAM), SORTS, DEFAULT_SORT),
    page: wholeNumber(get('page'), 1, 100_000) ?? 1,
    pageSize: (PAGE_SIZES as readonly number[]).includes(Number(get('pageSize'))) ? Number(get('pageSize')) : undefined,
    change: get('change') || undefined,
  };
}

function urlValue(key: keyof typeof PARAM, value: unknown): string | undefined {
  if (Array.isArray(value)) return value.length ? value.join(',') : undefined;
  if (value === undefined || value === '') return undefined;
  if (key === 'recursive' && value === 'none') return undefined;
  if (key === 'depth' && value === DEFAULT_DEPTH) return undefined;
  if (key === 'page' && value === 1) return undefined;
  return String(value);
}

/** `search` with `patch` applied. Any change but paging and opening a change
 * goes back to the first page; other parameters are kept. */
export function withChangesParams(search: URLSearchParams, patch: Partial<ChangesParams>): URLSearchParams {
  const next = new URLSearchParams(search);
  const keys = Object.keys(patch) as (keyof ChangesParams)[];
  if (keys.some((k) => k !== 'page' && k !== 'change' && k !== 'pageSize')) next.delete(PARAM.page);
  writeSort(next, SORT_PARAM, parseSort(search.get(SORT_PARAM), SORTS, DEFAULT_SORT), patch, DEFAULT_SORT);
  for (const key of keys) {
    if (key === 'sortBy' || key === 'sortDesc') continue;
    const value = urlValue(key, patch[key]);
    if (value === undefined) next.delete(PARAM[key]);
    else next.set(PARAM[key], value);
  }
  return next;
}

/** The search for the state: one item's changes (and with `recursive` its
 * relatives') when `configId` is given, else all the caller sees. */
export function changesRequest(
  params: ChangesParams,
  options: { configId?: string; range?: Instants; includeDeleted: boolean; pageSize: number },
): ChangesRequest {
  const list = (values: readonly string[]) => (values.length ? values.join(',') : undefined);
  const text = (value: string) => value.trim() || undefined;
  const request: ChangesRequest = {
    config_type: list(params.configTypes),
    type: list(params.changeTypes),
    severity: list(params.severities),
    source: list(splitList(params.source)),
    created_by: text(params.createdBy),
    summary: text(params.summary),
    tags: list(splitList(params.tags)),
    include_deleted_configs: options.includeDeleted,
    sort_by: sortText(params),
    page: params.page,
    page_size: options.pageSize,
  };
  if (options.range) {
    request.from = options.range.from.toISOString();
    request.to = options.range.to.toISOString();
  }
  if (options.configId) {
    request.id = options.configId;
    if (params.recursive !== 'none') {
      request.recursive = params.recursive;
      request.depth = params.depth;
    }
  }
  return Object.fromEntries(Object.entries(request).filter(([, v]) => v !== undefined)) as ChangesRequest;
}

/** Tags typed as `key=value,...`: the malformed pairs, to warn before the server refuses them. */
export function badTags(text: string): string[] {
  return splitList(text).filter((pair) => {
    const at = pair.indexOf('=');
    return at <= 0;
  });
}
