/** The Health page's and check detail's time ranges, in order, with their
 * windows in minutes (the API has no month unit, decision 14.4), and the range a check opens with
 * when none is asked for. */

export const TIME_WINDOW_MINUTES = {
  '15m': 15,
  '1h': 60,
  '2h': 120,
  '3h': 180,
  '6h': 360,
  '12h': 720,
  '1d': 1440,
  '2d': 2880,
  '3d': 4320,
  '1w': 10080,
  '2w': 20160,
  '3w': 30240,
  '1mo': 43200,
  '2mo': 86400,
  '3mo': 129600,
  '6mo': 259200,
  '1y': 518400,
  '2y': 1036800,
  '3y': 1555200,
  '5y': 2592000,
} as const;
export type TimeRange = keyof typeof TIME_WINDOW_MINUTES;

export const TIME_RANGES = Object.keys(TIME_WINDOW_MINUTES) as TimeRange[];

/** The range a dialog falls back to, and that closing it leaves in the URL. */
export const DEFAULT_TIME_RANGE: TimeRange = '1h';

/** The ranges a last run's age steps through (all but 15m, 2h and 5y): the
 * first whose window is longer than the age wins, and anything older gets 5y. */
const NOT_STEPS: readonly TimeRange[] = ['15m', '2h', '5y'];
const DEFAULT_STEPS = TIME_RANGES.filter((range) => !NOT_STEPS.includes(range));

export function isTimeRange(value: string | null | undefined): value is TimeRange {
  return (TIME_RANGES as readonly string[]).includes(value ?? '');
}

/** A range wide enough to show the last run: 1h under 60 minutes old, up to
 * 5y. A check that never ran (or a date in the future) gets 1h. */
export function defaultTimeRange(lastRuntime: string | null | undefined, now: number = Date.now()): TimeRange {
  const time = lastRuntime ? Date.parse(lastRuntime) : NaN;
  if (Number.isNaN(time)) return DEFAULT_TIME_RANGE;
  const ageMinutes = (now - time) / 60_000;
  return DEFAULT_STEPS.find((range) => ageMinutes < TIME_WINDOW_MINUTES[range]) ?? '5y';
}

/** The start of a range as the health API takes it: a duration ago in minutes
 * (the API's durations have no month unit). */
export function rangeStart(range: TimeRange): string {
  return `${TIME_WINDOW_MINUTES[range]}m`;
}

const RANGE_UNITS: Record<string, [string, string]> = {
  m: ['minute', 'minutes'],
  h: ['hour', 'hours'],
  d: ['day', 'days'],
  w: ['week', 'weeks'],
  mo: ['month', 'months'],
  y: ['year', 'years'],
};

/** "Last 15 minutes", "Last 1 hour". */
export function timeRangeLabel(range: TimeRange): string {
  const [, count = '', unit = ''] = /^(\d+)(\D+)$/.exec(range) ?? [];
  const [one, many] = RANGE_UNITS[unit] ?? [unit, unit];
  return `Last ${count} ${count === '1' ? one : many}`;
}
