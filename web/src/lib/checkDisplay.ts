/** How a check reads: its title, latency and uptime (spec part 2 sections 2.2 and 9). */

const NUMBER = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

const LATENCY_UNITS: [below: number, size: number, unit: string][] = [
  [1000, 1, 'ms'],
  [60_000, 1000, 's'],
  [3_600_000, 60_000, 'm'],
  [Infinity, 3_600_000, 'h'],
];

/** Milliseconds in the largest unit that keeps them at least 1: under 1000 in
 * ms (whole), then s, m and h with up to 1 decimal; '-' without a value. */
export function formatLatency(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '-';
  const [, size, unit] = LATENCY_UNITS.find(([below]) => ms < below) ?? [Infinity, 3_600_000, 'h'];
  return unit === 'ms' ? `${Math.round(ms)}ms` : `${NUMBER.format(ms / size)}${unit}`;
}

/** passed / (passed + failed) as a percentage with `decimals` places; '-' without runs. */
export function uptimePercent(passed: number, failed: number, decimals = 2): string {
  const total = passed + failed;
  if (total <= 0) return '-';
  return `${((passed / total) * 100).toFixed(decimals)}%`;
}

/** What a check is called: its name, else its description, else its endpoint. */
export function checkTitle(check: { name?: string | null; description?: string | null; endpoint?: string | null }): string {
  return check.name || check.description || check.endpoint || '';
}

/** The agent id of rows that belong to this instance rather than an agent. */
export const NULL_AGENT_ID = '00000000-0000-0000-0000-000000000000';
