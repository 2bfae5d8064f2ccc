/** Dates as the preferences say: the default 'timestamp' format is
 * YYYY-MM-DD HH:mm:ss.SSS in the browser's zone (or the chosen one). */

export type DateFormat = 'timestamp' | 'short';

// Building a DateTimeFormat is slow next to using one, and tables format many dates.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone?: string): Intl.DateTimeFormat {
  const key = timeZone ?? '';
  let fmt = formatters.get(key);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat('en-CA', {
      timeZone,
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

function parts(date: Date, timeZone?: string): Record<string, string> {
  return Object.fromEntries(
    formatter(timeZone)
      .formatToParts(date)
      .map((p) => [p.type, p.value]),
  );
}

/** Empty for missing values and for the zero date of year 0001. */
export function formatDateTime(value: string | null | undefined, format: DateFormat = 'timestamp', timeZone?: string): string {
  if (!value || value.startsWith('0001-')) return '';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  const p = parts(date, timeZone);
  const day = `${p.year}-${p.month}-${p.day}`;
  if (format === 'short') return `${day} ${p.hour}:${p.minute}`;
  return `${day} ${p.hour}:${p.minute}:${p.second}.${p.fractionalSecond}`;
}
