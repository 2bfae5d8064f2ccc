/** Time ranges of the shared picker (decision 13.2): what a
 * selection is, how it is kept in the URL, and which instants it stands for.
 *
 * URL parameters: rangeType (absolute | relative | mapped), display (the
 * label), from and to (ISO instants of an absolute range), range (the date
 * math of a relative range, e.g. now-2d) and timeRange (the name of a quick
 * range, e.g. Yesterday). Quick ranges are computed in the browser's zone and
 * weeks start on Monday. */

export interface RelativeRange {
  type: 'relative';
  /** Date math, e.g. now-2d. */
  range: string;
}

export interface MappedRange {
  type: 'mapped';
  display: QuickRangeName;
}

export interface AbsoluteRange {
  type: 'absolute';
  /** ISO instants. */
  from: string;
  to: string;
}

export type TimeRange = RelativeRange | MappedRange | AbsoluteRange;

export interface Instants {
  from: Date;
  to: Date;
}

export const RELATIVE_RANGES: readonly { range: string; label: string }[] = [
  { range: 'now-5m', label: 'Last 5 minutes' },
  { range: 'now-15m', label: 'Last 15 minutes' },
  { range: 'now-30m', label: 'Last 30 minutes' },
  { range: 'now-1h', label: 'Last 1 hour' },
  { range: 'now-3h', label: 'Last 3 hours' },
  { range: 'now-6h', label: 'Last 6 hours' },
  { range: 'now-12h', label: 'Last 12 hours' },
  { range: 'now-24h', label: 'Last 24 hours' },
  { range: 'now-2d', label: 'Last 2 days' },
  { range: 'now-7d', label: 'Last 7 days' },
  { range: 'now-30d', label: 'Last 30 days' },
  { range: 'now-90d', label: 'Last 90 days' },
  { range: 'now-6M', label: 'Last 6 months' },
  { range: 'now-1y', label: 'Last 1 year' },
  { range: 'now-2y', label: 'Last 2 years' },
  { range: 'now-5y', label: 'Last 5 years' },
];

/** Quick ranges as date math: `from` rounds down to the start of its unit and
 * `to` up to the end of it. */
const QUICK = {
  Yesterday: ['now-1d/d', 'now-1d/d'],
  'Day before yesterday': ['now-2d/d', 'now-2d/d'],
  'This day last week': ['now-7d/d', 'now-7d/d'],
  'Previous week': ['now-1w/w', 'now-1w/w'],
  'Previous month': ['now-1M/M', 'now-1M/M'],
  'Previous year': ['now-1y/y', 'now-1y/y'],
  Today: ['now/d', 'now/d'],
  'Today so far': ['now/d', 'now'],
  'This week': ['now/w', 'now/w'],
  'This week so far': ['now/w', 'now'],
  'This month': ['now/M', 'now/M'],
  'This month so far': ['now/M', 'now'],
  'This year': ['now/y', 'now/y'],
  'This year so far': ['now/y', 'now'],
} as const satisfies Record<string, readonly [string, string]>;

export type QuickRangeName = keyof typeof QUICK;

export const QUICK_RANGES = Object.keys(QUICK) as QuickRangeName[];

export function isQuickRange(name: string | null | undefined): name is QuickRangeName {
  return name != null && Object.hasOwn(QUICK, name);
}

type Unit = 's' | 'm' | 'h' | 'd' | 'w' | 'M' | 'y';

const DATE_MATH = /^now(?:([+-])(\d+)([smhdwMy]))?(?:\/([smhdwMy]))?$/;

function add(date: Date, amount: number, unit: Unit): Date {
  const d = new Date(date);
  switch (unit) {
    case 's':
      return new Date(d.getTime() + amount * 1000);
    case 'm':
      return new Date(d.getTime() + amount * 60_000);
    case 'h':
      return new Date(d.getTime() + amount * 3_600_000);
    case 'd':
      d.setDate(d.getDate() + amount);
      return d;
    case 'w':
      d.setDate(d.getDate() + amount * 7);
      return d;
    case 'M':
      return addMonths(d, amount);
    case 'y':
      return addMonths(d, amount * 12);
  }
}

/** Months later, on the same day or the last of a shorter month (Mar 31 - 1M = Feb 29). */
function addMonths(date: Date, months: number): Date {
  const d = new Date(date);
  const day = d.getDate();
  d.setDate(1);
  d.setMonth(d.getMonth() + months);
  const lastDay = new Date(d.getFullYear(), d.getMonth() + 1, 0).getDate();
  d.setDate(Math.min(day, lastDay));
  return d;
}

function startOf(date: Date, unit: Unit): Date {
  const d = new Date(date);
  switch (unit) {
    case 'y':
      d.setMonth(0, 1);
      d.setHours(0, 0, 0, 0);
      return d;
    case 'M':
      d.setDate(1);
      d.setHours(0, 0, 0, 0);
      return d;
    case 'w':
      d.setDate(d.getDate() - ((d.getDay() + 6) % 7));
      d.setHours(0, 0, 0, 0);
      return d;
    case 'd':
      d.setHours(0, 0, 0, 0);
      return d;
    case 'h':
      d.setMinutes(0, 0, 0);
      return d;
    case 'm':
      d.setSeconds(0, 0);
      return d;
    case 's':
      d.setMilliseconds(0);
      return d;
  }
}

/** The last millisecond of the unit `date` is in. */
function endOf(date: Date, unit: Unit): Date {
  return new Date(add(startOf(date, unit), 1, unit).getTime() - 1);
}

/** `now`, `now-2d`, `now+1h`, `now-1w/w`, `now/M`; `roundUp` rounds to the
 * end of the unit after `/` instead of its start. Undefined when invalid. */
export function parseDateMath(expression: string, now: Date, roundUp = false): Date | undefined {
  const match = DATE_MATH.exec(expression.trim());
  if (!match) return undefined;
  const [, sign, amount, unit, round] = match;
  let date = new Date(now);
  if (sign) date = add(date, (sign === '-' ? -1 : 1) * Number(amount), unit as Unit);
  if (round) date = roundUp ? endOf(date, round as Unit) : startOf(date, round as Unit);
  return date;
}

function isInstant(value: string): boolean {
  return !Number.isNaN(Date.parse(value));
}

/** The instants a range stands for at `now`; undefined when it is invalid. */
export function resolveTimeRange(range: TimeRange, now: Date): Instants | undefined {
  switch (range.type) {
    case 'relative': {
      const from = parseDateMath(range.range, now);
      if (!from) return undefined;
      return from <= now ? { from, to: new Date(now) } : { from: new Date(now), to: from };
    }
    case 'mapped': {
      if (!isQuickRange(range.display)) return undefined;
      const [from, to] = QUICK[range.display];
      return { from: parseDateMath(from, now) as Date, to: parseDateMath(to, now, true) as Date };
    }
    case 'absolute':
      if (!isInstant(range.from) || !isInstant(range.to)) return undefined;
      return { from: new Date(range.from), to: new Date(range.to) };
  }
}

const PARAMS = ['rangeType', 'display', 'from', 'to', 'range', 'timeRange'] as const;

/** The range the URL names. Invalid relative and quick ranges are logged and
 * read as none, so the caller's default applies. */
export function timeRangeFromParams(params: URLSearchParams): TimeRange | undefined {
  switch (params.get('rangeType')) {
    case 'relative': {
      const range = params.get('range') ?? '';
      if (parseDateMath(range, new Date())) return { type: 'relative', range };
      console.error(`Invalid relative time range: '${range}'`);
      return undefined;
    }
    case 'mapped': {
      const name = params.get('timeRange') ?? params.get('display');
      if (isQuickRange(name)) return { type: 'mapped', display: name };
      console.error(`Invalid mapped time range: '${name ?? ''}'`);
      return undefined;
    }
    case 'absolute': {
      const from = params.get('from') ?? '';
      const to = params.get('to') ?? '';
      if (isInstant(from) && isInstant(to)) return { type: 'absolute', from, to };
      console.error(`Invalid absolute time range: '${from}' to '${to}'`);
      return undefined;
    }
    default:
      return undefined;
  }
}

/** `params` with `range` written in place of any previous range. */
export function timeRangeToParams(range: TimeRange, params: URLSearchParams): URLSearchParams {
  const next = new URLSearchParams(params);
  for (const key of PARAMS) next.delete(key);
  next.set('rangeType', range.type);
  next.set('display', timeRangeLabel(range));
  switch (range.type) {
    case 'relative':
      next.set('range', range.range);
      break;
    case 'mapped':
      next.set('timeRange', range.display);
      break;
    case 'absolute':
      next.set('from', range.from);
      next.set('to', range.to);
      break;
  }
  return next;
}

/** The instants the URL's range stands for at `now`, else those of `fallback`. */
export function timeRangeInstants(params: URLSearchParams, fallback: TimeRange, now: Date = new Date()): Instants {
  const range = timeRangeFromParams(params);
  return (range && resolveTimeRange(range, now)) ?? (resolveTimeRange(fallback, now) as Instants);
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** YYYY-MM-DD HH:mm in the browser's zone. */
export function formatLocal(date: Date): string {
  return `${localDate(date)} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** YYYY-MM-DD in the browser's zone. */
export function localDate(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** HH:mm in the browser's zone. */
export function localTime(date: Date): string {
  return `${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** The instant of a YYYY-MM-DD date and HH:mm time in the browser's zone. */
export function parseLocal(date: string, time: string): Date | undefined {
  const d = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date.trim());
  const t = /^(\d{1,2}):(\d{2})$/.exec(time.trim());
  if (!d || !t) return undefined;
  const [year, month, day, hour, minute] = [d[1], d[2], d[3], t[1], t[2]].map(Number) as [number, number, number, number, number];
  if (hour > 23 || minute > 59) return undefined;
  const result = new Date(year, month - 1, day, hour, minute);
  // Rejects dates that roll over, such as 2025-02-30.
  return result.getMonth() === month - 1 && result.getDate() === day ? result : undefined;
}

export function timeRangeLabel(range: TimeRange): string {
  switch (range.type) {
    case 'relative':
      return RELATIVE_RANGES.find((r) => r.range === range.range)?.label ?? range.range;
    case 'mapped':
      return range.display;
    case 'absolute':
      return `${formatLocal(new Date(range.from))} to ${formatLocal(new Date(range.to))}`;
  }
}

export const RECENT_LIMIT = 5;

/** `recent` with `range` first, without duplicates, at most five. */
export function addRecentRange(recent: readonly AbsoluteRange[], range: AbsoluteRange): AbsoluteRange[] {
  return [range, ...recent.filter((r) => r.from !== range.from || r.to !== range.to)].slice(0, RECENT_LIMIT);
}

const RECENT_KEY = 'quarterdeck.recentTimeRanges';

/** The recently used absolute ranges kept in localStorage (newest first). */
export function readRecentRanges(storage: Pick<Storage, 'getItem'> | undefined = globalThis.localStorage): AbsoluteRange[] {
  try {
    const value = JSON.parse(storage?.getItem(RECENT_KEY) ?? '[]') as unknown;
    if (!Array.isArray(value)) return [];
    return value
      .filter((r): r is AbsoluteRange => typeof r?.from === 'string' && typeof r?.to === 'string' && isInstant(r.from) && isInstant(r.to))
      .map((r) => ({ type: 'absolute' as const, from: r.from, to: r.to }))
      .slice(0, RECENT_LIMIT);
  } catch {
    return [];
  }
}

export function writeRecentRanges(
  recent: readonly AbsoluteRange[],
  storage: Pick<Storage, 'setItem'> | undefined = globalThis.localStorage,
): void {
  try {
    storage?.setItem(RECENT_KEY, JSON.stringify(recent));
  } catch {
    // storage unavailable: the list lasts for this page only
  }
}
