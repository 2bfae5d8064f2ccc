/** The Health page's state, kept in its URL query (decision 14.1).
 * Parameters at their default are left out of the URL; others are kept. */
import { DEFAULT_TIME_RANGE, TIME_RANGES, type TimeRange } from './checkTimeRange';

const LAYOUTS = ['table', 'card'] as const;
export type Layout = (typeof LAYOUTS)[number];

const SORT_COLUMNS = ['name', 'health', 'uptime', 'latency'] as const;
export type SortColumn = (typeof SORT_COLUMNS)[number];

const PIVOT_CELL_TYPES = ['health', 'uptime', 'latency'] as const;
export type PivotCellType = (typeof PIVOT_CELL_TYPES)[number];

export const NO_GROUP = 'no-group';
/** Check fields to group (and pivot) by; label keys are `label:<key>`. */
const GROUP_FIELDS = ['canary_name', 'name', 'description', 'type'] as const;
const TAB_FIELDS = ['namespace', 'agent'] as const;
export const LABEL_PREFIX = 'label:';

/** Label id (`key=value`) to 1 (include) or -1 (exclude). */
export type LabelFilter = Readonly<Record<string, 1 | -1>>;

export interface HealthParams {
  checkId?: string;
  timeRange: TimeRange;
  layout: Layout;
  query: string;
  groupBy: string;
  tabBy: string;
  /** The selected tab's value; none for 'All'. */
  tab?: string;
  hidePassing: boolean;
  labels: LabelFilter;
  sortBy: SortColumn;
  sortDesc: boolean;
  pivotBy?: string;
  pivotLabel?: string;
  pivotCellType: PivotCellType;
}

export const DEFAULT_PARAMS: HealthParams = {
  timeRange: DEFAULT_TIME_RANGE,
  layout: 'table',
  query: '',
  groupBy: 'canary_name',
  tabBy: 'namespace',
  hidePassing: true,
  labels: {},
  sortBy: 'name',
  sortDesc: false,
  pivotCellType: 'health',
};

/** Keys a plain object must not take from the URL. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor']);

const isLabelKey = (value: string) => value.startsWith(LABEL_PREFIX) && value.length > LABEL_PREFIX.length;

function oneOf<T extends string>(allowed: readonly T[], value: string | null, fallback: T): T {
  return allowed.includes(value as T) ? (value as T) : fallback;
}

function isGroupBy(value: string): boolean {
  return value === NO_GROUP || (GROUP_FIELDS as readonly string[]).includes(value) || isLabelKey(value);
}

function isTabBy(value: string): boolean {
  return (TAB_FIELDS as readonly string[]).includes(value) || isLabelKey(value);
}

function isPivotBy(value: string): boolean {
  return value !== NO_GROUP && (isGroupBy(value) || value === 'namespace');
}

/** The labels parameter: entries of 1 or -1 from a JSON object; anything
 * else (bad JSON, other values, __proto__ and constructor) is dropped. */
export function parseLabels(text: string | null): LabelFilter {
  if (!text) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {};
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
  return Object.fromEntries(
    Object.entries(parsed).filter(([key, value]) => !FORBIDDEN_KEYS.has(key) && (value === 1 || value === -1)),
  ) as LabelFilter;
}

/** JSON with sorted keys, so equal filters give equal URLs; none when empty. */
export function serializeLabels(labels: LabelFilter): string | undefined {
  const entries = Object.entries(labels)
    .filter(([key]) => !FORBIDDEN_KEYS.has(key))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length ? JSON.stringify(Object.fromEntries(entries)) : undefined;
}

export function parseHealthParams(search: URLSearchParams): HealthParams {
  const text = (name: string) => search.get(name) || undefined;
  const groupBy = search.get('groupBy') ?? '';
  const tabBy = search.get('tabBy') ?? '';
  const pivotBy = search.get('pivotBy') ?? '';
  return {
    checkId: text('checkId'),
    timeRange: oneOf(TIME_RANGES, search.get('timeRange'), DEFAULT_PARAMS.timeRange),
    layout: oneOf(LAYOUTS, search.get('layout'), DEFAULT_PARAMS.layout),
    query: search.get('query') ?? '',
    groupBy: isGroupBy(groupBy) ? groupBy : DEFAULT_PARAMS.groupBy,
    tabBy: isTabBy(tabBy) ? tabBy : DEFAULT_PARAMS.tabBy,
    tab: text('tab'),
    hidePassing: search.get('hidePassing') !== 'false',
    labels: parseLabels(search.get('labels')),
    sortBy: oneOf(SORT_COLUMNS, search.get('sortBy'), DEFAULT_PARAMS.sortBy),
    sortDesc: search.get('sortDesc') === 'true',
    pivotBy: isPivotBy(pivotBy) ? pivotBy : undefined,
    pivotLabel: text('pivotLabel'),
    pivotCellType: oneOf(PIVOT_CELL_TYPES, search.get('pivotCellType'), DEFAULT_PARAMS.pivotCellType),
  };
}

/** The URL value of one parameter; undefined leaves it out. */
function urlValue<K extends keyof HealthParams>(key: K, value: HealthParams[K]): string | undefined {
  if (key === 'labels') return serializeLabels(value as LabelFilter);
  if (value === undefined || value === '' || value === DEFAULT_PARAMS[key]) return undefined;
  return String(value);
}

/** `search` with `patch` applied: defaults removed, unrelated parameters kept. */
export function withHealthParams(search: URLSearchParams, patch: Partial<HealthParams>): URLSearchParams {
  const next = new URLSearchParams(search);
  for (const key of Object.keys(patch) as (keyof HealthParams)[]) {
    const value = urlValue(key, patch[key] as HealthParams[typeof key]);
    if (value === undefined) next.delete(key);
    else next.set(key, value);
  }
  return next;
}
