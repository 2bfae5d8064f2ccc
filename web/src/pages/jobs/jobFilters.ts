import type { Query } from '../../api/db';
import type { Instants, TimeRange } from '../../components/timerange/timeRange';

/** Job history filters (decisions 13.1 to 13.7), how the URL keeps them and
 * the data API query they make. URL parameters: name, resource_type, status
 * (e.g. SUCCESS:-1,FAILED:1), duration (minimum, in ms), sortBy, sortDesc,
 * pageIndex, pageSize, plus the time range's own. */

export const JOB_STATUSES = ['RUNNING', 'SUCCESS', 'WARNING', 'FAILED', 'STOPPED'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const RESOURCE_TYPES = ['canary', 'topology', 'config_scraper'] as const;

/** 1 includes a status, -1 excludes it. */
export type StatusFilter = Partial<Record<JobStatus, 1 | -1>>;

export const DEFAULT_STATUS = 'SUCCESS:-1';
export const DEFAULT_TIME_RANGE: TimeRange = { type: 'relative', range: 'now-2d' };
export const DEFAULT_PAGE_SIZE = 150;
export const PAGE_SIZES = [5, 10, 25, 50, 100, 150, 200, 250, 300, 500, 1000] as const;

export const SORTABLE = [
  'name',
  'resource_type',
  'status',
  'time_start',
  'duration_millis',
  'success_count',
  'error_count',
  'created_at',
] as const;
export type SortColumn = (typeof SORTABLE)[number];

export interface Sort {
  by: SortColumn;
  desc: boolean;
}

export const DEFAULT_SORT: Sort = { by: 'created_at', desc: true };

export interface JobFilters {
  name?: string;
  resourceType?: string;
  resourceId?: string;
  status: StatusFilter;
  /** Minimum duration in milliseconds. */
  durationMs?: number;
  sort: Sort;
  pageIndex: number;
  pageSize: number;
}

function isStatus(value: string): value is JobStatus {
  return (JOB_STATUSES as readonly string[]).includes(value);
}

/** `SUCCESS:-1,FAILED:1`; unknown statuses and states are dropped. */
export function parseStatusFilter(text: string): StatusFilter {
  const filter: StatusFilter = {};
  for (const part of text.split(',')) {
    const [status = '', state] = part.split(':');
    if (isStatus(status) && (state === '1' || state === '-1')) filter[status] = state === '1' ? 1 : -1;
  }
  return filter;
}

export function formatStatusFilter(filter: StatusFilter): string {
  return JOB_STATUSES.filter((s) => filter[s])
    .map((s) => `${s}:${filter[s]}`)
    .join(',');
}

function nonNegativeInt(text: string | null, fallback: number): number {
  const n = Number(text ?? undefined);
  return Number.isInteger(n) && n >= 0 ? n : fallback;
}

function isSortColumn(value: string | null): value is SortColumn {
  return value !== null && (SORTABLE as readonly string[]).includes(value);
}

/** The filters in the URL, defaults for those it lacks. An empty `status`
 * means no status filter; a missing one, the default (SUCCESS excluded). */
export function jobFiltersFromParams(params: URLSearchParams): JobFilters {
  const sortBy = params.get('sortBy');
  const pageSize = nonNegativeInt(params.get('pageSize'), DEFAULT_PAGE_SIZE);
  const duration = params.get('duration');
  return {
    name: params.get('name') || undefined,
    resourceType: params.get('resource_type') || undefined,
    status: parseStatusFilter(params.get('status') ?? DEFAULT_STATUS),
    durationMs: duration ? nonNegativeInt(duration, 0) || undefined : undefined,
    sort: isSortColumn(sortBy) ? { by: sortBy, desc: params.get('sortDesc') !== 'false' } : DEFAULT_SORT,
    pageIndex: nonNegativeInt(params.get('pageIndex'), 0),
    pageSize: pageSize > 0 ? pageSize : DEFAULT_PAGE_SIZE,
  };
}

/** The URL parameter each filter is kept in. */
export const FILTER_PARAMS = {
  name: 'name',
  resourceType: 'resource_type',
  status: 'status',
  durationMs: 'duration',
} as const;

export const COLUMNS = [
  'id',
  'name',
  'status',
  'time_start',
  'duration_millis',
  'success_count',
  'error_count',
  'resource_id',
  'resource_type',
  'details',
  'created_at',
] as const;
export const EMBEDS = { agent: ['id', 'name'] } as const;

export type JobHistoryQuery = Query<'job_histories', (typeof COLUMNS)[number], typeof EMBEDS>;

/** The data API query of job_histories for the filters and time range. */
export function jobHistoryQuery(filters: JobFilters, range?: Instants): JobHistoryQuery {
  const query: JobHistoryQuery = {
    columns: COLUMNS,
    embed: EMBEDS,
    order: `${filters.sort.by}.${filters.sort.desc ? 'desc' : 'asc'},id`,
    limit: filters.pageSize,
    offset: filters.pageIndex * filters.pageSize,
  };
  if (filters.name) query.name = `eq.${filters.name}`;
  if (filters.resourceType) query.resource_type = `eq.${filters.resourceType}`;
  if (filters.resourceId) query.resource_id = `eq.${filters.resourceId}`;
  const included = JOB_STATUSES.filter((s) => filters.status[s] === 1);
  const excluded = JOB_STATUSES.filter((s) => filters.status[s] === -1);
  if (included.length > 0) query.status = `in.(${included.join(',')})`;
  else if (excluded.length > 0) query.status = `not.in.(${excluded.join(',')})`;
  if (filters.durationMs !== undefined) query.duration_millis = `gte.${filters.durationMs}`;
  if (range) query.and = `(created_at.gte.${range.from.toISOString()},created_at.lte.${range.to.toISOString()})`;
  return query;
}
