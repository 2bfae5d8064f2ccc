/** The status history's duration filter (spec part 2 section 5): a preset or
 * a number with unit ms or s, applied as milliseconds. */

export const DURATION_PRESETS = ['100ms', '500ms', '1s', '5s', '10s', '30s'] as const;

export const DURATION_ERROR = 'duration is allowed only in milli seconds & seconds';

export type DurationFilter = { ms: number | undefined; error?: undefined } | { ms?: undefined; error: string };

const PATTERN = /^(\d+(?:\.\d+)?|\.\d+)\s*(ms|s)$/i;

/** Empty text and 'All' mean no filter; anything but a number with ms or s is
 * the error. */
export function parseDurationFilter(text: string): DurationFilter {
  const value = text.trim();
  if (!value || value.toLowerCase() === 'all') return { ms: undefined };
  const [, amount, unit] = PATTERN.exec(value) ?? [];
  if (!amount || !unit) return { error: DURATION_ERROR };
  return { ms: Math.round(unit.toLowerCase() === 's' ? Number(amount) * 1000 : Number(amount)) };
}
