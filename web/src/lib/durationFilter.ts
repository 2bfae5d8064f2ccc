/** The minimum-duration filter of the check status history and the job
 * history (decision 13.6): a preset, or a custom number of
 * milliseconds or seconds. */

export const DURATION_ERROR = 'duration is allowed only in milli seconds & seconds';

export const DURATION_PRESETS: readonly { label: string; ms: number }[] = [
  { label: '100ms', ms: 100 },
  { label: '500ms', ms: 500 },
  { label: '1s', ms: 1000 },
  { label: '5s', ms: 5000 },
  { label: '10s', ms: 10_000 },
  { label: '30s', ms: 30_000 },
];

const CUSTOM = /^(\d+(?:\.\d+)?|\.\d+)\s*(ms|s)$/i;

/** `1500ms`, `1.5s` and `1.5 S` are 1500 (ms); anything else is the error. */
export function parseDuration(text: string): { ms: number } | { error: string } {
  const [, amount, unit] = CUSTOM.exec(text.trim()) ?? [];
  if (!amount || !unit) return { error: DURATION_ERROR };
  return { ms: Math.round(Number(amount) * (unit.toLowerCase() === 's' ? 1000 : 1)) };
}

/** How a duration in milliseconds reads in the filter: its preset, or `{n}ms`. */
export function durationLabel(ms: number): string {
  return DURATION_PRESETS.find((p) => p.ms === ms)?.label ?? `${ms}ms`;
}
