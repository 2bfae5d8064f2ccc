/** What the Health page shows of latencies, uptimes and ages, beyond
 * checkDisplay.ts (spec part 2 section 9). */
import type { TimeRange } from './checkTimeRange';
import { compactAge } from './format';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Ages older than this are not shown. */
const MAX_AGE_MS = 7 * DAY;
/** The health cell shows the last run's age only once it is over an hour old. */
export const HEALTH_CELL_MIN_AGE_MS = HOUR + 1;

/** The latency a check's row shows: p95, else p97, else p99. */
export function rowLatency(latency: { p95?: number | null; p97?: number | null; p99?: number | null }): number | undefined {
  return latency.p95 || latency.p97 || latency.p99 || undefined;
}

/** passed / (passed + failed), to sort and aggregate by; undefined without runs. */
export function uptimeRatio({ passed, failed }: { passed: number; failed: number }): number | undefined {
  const total = passed + failed;
  return total > 0 ? passed / total : undefined;
}

/** The compact age of `value` ("3h ago"), or empty outside [min, max]. */
export function relativeAge(
  value: string | null | undefined,
  { min = 0, max = MAX_AGE_MS, now = Date.now() }: { min?: number; max?: number; now?: number } = {},
): string {
  if (!value || value.startsWith('0001-')) return '';
  const age = now - Date.parse(value);
  if (!Number.isFinite(age) || age < min || age > max) return '';
  return `${compactAge(age)} ago`;
}

const UNIT_MS: Record<string, number> = { s: SECOND, m: MINUTE, h: HOUR, d: DAY, w: 7 * DAY };

/** A number plus a unit s, m, h, d or w ("15s", "2m") in ms; undefined otherwise. */
export function durationMs(text: string): number | undefined {
  const match = /^(\d+)([smhdw])$/.exec(text.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * (UNIT_MS[match[2] ?? ''] ?? 0);
  return ms > 0 ? ms : undefined;
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
