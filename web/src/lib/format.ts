/** Dates as the preferences say (decision 8.1):
 * - timestamp (default): YYYY-MM-DD HH:mm:ss.SSS
 * - full: Jan 1 10:30:01.999
 * - medium: Mon 10:30:45
 * - short: the compact age, 1h (or 'in 1h' for a future date)
 * in the browser's zone or the chosen one. */

export const DATE_FORMATS = ['timestamp', 'full', 'medium', 'short'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

/** How each format reads, for the preferences popover. */
export const DATE_FORMAT_LABELS: Record<DateFormat, string> = {
  timestamp: 'Timestamp (2026-01-01 10:30:01.999)',
  full: 'Full (Jan 1 10:30:01.999)',
  medium: 'Medium (Mon 10:30:45)',
  short: 'Short (1h)',
};

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

// Building a DateTimeFormat is slow next to using one, and tables format many dates.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone?: string): Intl.DateTimeFormat {
  const key = timeZone ?? '';
  let fmt = formatters.get(key);
  if (!fmt) {
    if (timeZone && !isKnownZone(timeZone)) return formatter();
    fmt = new Intl.DateTimeFormat('en-US', {
      timeZone,
      weekday: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      fractionalSecondDigits: 3,
      hourCycle: 'h23',
    });
    formatters.set(key, fmt);
  }
  return fmt;
}

/** A zone this runtime can format in (a stored preference may name one it lacks). */
function isKnownZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

function parts(date: Date, timeZone?: string): Record<string, string> {
  return Object.fromEntries(
    formatter(timeZone)
      .formatToParts(date)
      .map((p) => [p.type, p.value]),
  );
}

const AGE_UNITS: [limitSeconds: number, seconds: number, unit: string][] = [
  [60, 1, 's'],
  [3600, 60, 'm'],
  [86400, 3600, 'h'],
  [30 * 86400, 86400, 'd'],
  [365 * 86400, 30 * 86400, 'mo'],
  [Infinity, 365 * 86400, 'y'],
];

/** The compact age between two instants: 45s, 1m, 2h, 3d, 1mo, 1y. */
export function compactAge(ms: number): string {
  const seconds = Math.floor(Math.abs(ms) / 1000);
  for (const [limit, size, unit] of AGE_UNITS) {
    if (seconds < limit) return `${Math.floor(seconds / size)}${unit}`;
  }
  return '';
}

/** Empty for missing values and for the zero date of year 0001. */
export function formatDateTime(
  value: string | null | undefined,
  format: DateFormat = 'timestamp',
  timeZone?: string,
  now: number = Date.now(),
): string {
  if (!value || value.startsWith('0001-')) return '';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  if (format === 'short') {
    const diff = now - date.getTime();
    return diff >= 0 ? compactAge(diff) : `in ${compactAge(diff)}`;
  }
  const p = parts(date, timeZone);
  const time = `${p.hour}:${p.minute}:${p.second}`;
  switch (format) {
    case 'full':
      return `${MONTHS[Number(p.month) - 1]} ${Number(p.day)} ${time}.${p.fractionalSecond}`;
    case 'medium':
      return `${p.weekday} ${time}`;
    default:
      return `${p.year}-${p.month}-${p.day} ${time}.${p.fractionalSecond}`;
  }
}
