/** The insights list's state, kept in its URL query (decision 60), and the
 * data API query it makes of `config_analysis_items`. Lists are
 * comma-separated; parameters at their default are left out. */
import type { Query } from '../../../api/db';
import { parseSort, splitList, writeSort } from '../shared/listParams';

export const ANALYSIS_TYPES = [
  'availability',
  'compliance',
  'cost',
  'integration',
  'other',
  'performance',
  'recommendation',
  'reliability',
  'security',
  'technical_debt',
] as const;
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export const STATUSES = ['open', 'resolved', 'silenced'] as const;
export const PAGE_SIZES = [5, 10, 25, 50, 100, 150, 200, 250, 300, 500, 1000] as const;

export const SORTS = ['config_name', 'analyzer', 'analysis_type', 'severity', 'status', 'first_observed', 'last_observed'] as const;
export type SortColumn = (typeof SORTS)[number];
export const DEFAULT_SORT = '-last_observed';

export interface InsightsParams {
  analyzers: string[];
  types: string[];
  severities: string[];
  statuses: string[];
  sortBy: SortColumn;
  sortDesc: boolean;
  page: number;
  /** Unset: the page-size preference decides. */
  pageSize?: number;
}

const PARAM = {
  analyzers: 'analyzer',
  types: 'analysisType',
  severities: 'severity',
  statuses: 'status',
  page: 'page',
  pageSize: 'pageSize',
} as const;
const SORT_PARAM = 'sortBy';

export function parseInsightsParams(search: URLSearchParams): InsightsParams {
  const page = Number(search.get(PARAM.page) ?? undefined);
  const pageSize = Number(search.get(PARAM.pageSize) ?? undefined);
  return {
    analyzers: splitList(search.get(PARAM.analyzers)),
    types: splitList(search.get(PARAM.types)),
    severities: splitList(search.get(PARAM.severities)),
    statuses: splitList(search.get(PARAM.statuses)),
    ...parseSort(search.get(SORT_PARAM), SORTS, DEFAULT_SORT),
    page: Number.isInteger(page) && page >= 1 ? page : 1,
    pageSize: (PAGE_SIZES as readonly number[]).includes(pageSize) ? pageSize : undefined,
  };
}

/** `search` with `patch` applied; any change but paging returns to the first page. */
export function withInsightsParams(search: URLSearchParams, patch: Partial<InsightsParams>): URLSearchParams {
  const next = new URLSearchParams(search);
  if (Object.keys(patch).some((k) => k !== 'page' && k !== 'pageSize')) next.delete(PARAM.page);
  writeSort(next, SORT_PARAM, parseSort(search.get(SORT_PARAM), SORTS, DEFAULT_SORT), patch, DEFAULT_SORT);
  for (const key of ['analyzers', 'types', 'severities', 'statuses', 'page', 'pageSize'] as const) {
    if (!(key in patch)) continue;
    const value = patch[key];
    const text = Array.isArray(value) ? value.join(',') : value === undefined || (key === 'page' && value === 1) ? '' : String(value);
    if (text) next.set(PARAM[key], text);
    else next.delete(PARAM[key]);
  }
  return next;
}

export const COLUMNS = [
  'id',
  'config_id',
  'config_name',
  'config_type',
  'analyzer',
  'analysis_type',
  'severity',
  'status',
  'summary',
  'message',
  'first_observed',
  'last_observed',
] as const;

export type InsightsQuery = Query<'config_analysis_items', (typeof COLUMNS)[number]>;

/** `in.(...)` with each value quoted, so commas and spaces in names survive. */
function inList(values: readonly string[]): string {
  return `in.(${values.map((v) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')})`;
}

/** The page of `config_analysis_items` for the state: one item's with `configId`. */
export function insightsQuery(
  params: InsightsParams,
  options: { configId?: string; includeDeleted: boolean; pageSize: number },
): InsightsQuery {
  const direction = params.sortDesc ? 'desc.nullslast' : 'asc.nullsfirst';
  const query: InsightsQuery = {
    columns: COLUMNS,
    order: `${params.sortBy}.${direction},id.${params.sortDesc ? 'desc' : 'asc'}`,
    limit: options.pageSize,
    offset: (params.page - 1) * options.pageSize,
  };
  if (options.configId) query.config_id = `eq.${options.configId}`;
  if (!options.includeDeleted) query.config_deleted_at = 'is.null';
  if (params.analyzers.length) query.analyzer = inList(params.analyzers);
  if (params.types.length) query.analysis_type = inList(params.types);
  if (params.severities.length) query.severity = inList(params.severities);
  if (params.statuses.length) query.status = inList(params.statuses);
  return query;
}
