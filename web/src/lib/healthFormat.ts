/** How a check reads on the Health page and in its detail: title, latency,
 * uptime and ages, and the page's refresh rates (decisions 14.4 and 14.7). */
import { compactAge } from './format';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Ages older than this are not shown. */
const MAX_AGE_MS = 7 * DAY;
/** The health cell shows the last run's age only once it is over an hour old. */
export const HEALTH_CELL_MIN_AGE_MS = HOUR + 1;

const NUMBER = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

const LATENCY_UNITS: [below: number, size: number, unit: string][] = [
  [SECOND, 1, 'ms'],
  [MINUTE, SECOND, 's'],
  [HOUR, MINUTE, 'm'],
  [Infinity, HOUR, 'h'],
];

/** Milliseconds in the largest unit that keeps them at least 1: under 1000 in
 * ms (whole), then s, m and h with up to 1 decimal; '-' without a value. */
export function formatLatency(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '-';
  const [, size, unit] = LATENCY_UNITS.find(([below]) => ms < below) ?? [Infinity, HOUR, 'h'];
  return unit === 'ms' ? `${Math.round(ms)}ms` : `${NUMBER.format(ms / size)}${unit}`;
}

/** The latency a check's row shows: p95, else p97, else p99. */
export function rowLatency(latency: { p95?: number | null; p97?: number | null; p99?: number | null }): number | undefined {
  return latency.p95 || latency.p97 || latency.p99 || undefined;
}

/** passed / (passed + failed), to sort and aggregate by; undefined without runs. */
export function uptimeRatio({ passed, failed }: { passed: number; failed: number }): number | undefined {
  const total = passed + failed;
  return total > 0 ? passed / total : undefined;
}

/** passed / (passed + failed) as a percentage with `decimals` places; '-' without runs. */
export function uptimePercent(passed: number, failed: number, decimals = 2): string {
  const ratio = uptimeRatio({ passed, failed });
  return ratio === undefined ? '-' : `${(ratio * 100).toFixed(decimals)}%`;
}

/** What a check is called: its name, else its description, else its endpoint. */
export function checkTitle(check: { name?: string | null; description?: string | null; endpoint?: string | null }): string {
  return check.name || check.description || check.endpoint || '';
}

/** The agent id of rows that belong to this instance rather than an agent. */
export const NULL_AGENT_ID = '00000000-0000-0000-0000-000000000000';

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
