import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  QUICK_RANGES,
  RELATIVE_RANGES,
  addRecentRange,
  parseDateMath,
  parseLocal,
  readRecentRanges,
  resolveTimeRange,
  timeRangeFromParams,
  timeRangeInstants,
  timeRangeLabel,
  timeRangeToParams,
  writeRecentRanges,
  type AbsoluteRange,
  type QuickRangeName,
  type TimeRange,
} from './timeRange';

// Local times: quick ranges are computed in the browser's zone, whatever it is.
const at = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0) => new Date(y, mo - 1, d, h, mi, s, ms);
const endOfDay = (y: number, mo: number, d: number) => at(y, mo, d, 23, 59, 59, 999);
/** Wednesday 13 March 2024, 15:30. */
const NOW = at(2024, 3, 13, 15, 30);
const TWO_DAYS: TimeRange = { type: 'relative', range: 'now-2d' };

function quick(name: QuickRangeName, now = NOW) {
  return resolveTimeRange({ type: 'mapped', display: name }, now);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('date math', () => {
  it('adds and subtracts units', () => {
    expect(parseDateMath('now', NOW)).toEqual(NOW);
    expect(parseDateMath('now-5m', NOW)).toEqual(at(2024, 3, 13, 15, 25));
    expect(parseDateMath('now-24h', NOW)).toEqual(at(2024, 3, 12, 15, 30));
    expect(parseDateMath('now-2d', NOW)).toEqual(at(2024, 3, 11, 15, 30));
    expect(parseDateMath('now-6M', NOW)).toEqual(at(2023, 9, 13, 15, 30));
    expect(parseDateMath('now-5y', NOW)).toEqual(at(2019, 3, 13, 15, 30));
    expect(parseDateMath('now+1h', NOW)).toEqual(at(2024, 3, 13, 16, 30));
  });

  it('rounds to the start, or the end, of a unit', () => {
    expect(parseDateMath('now/d', NOW)).toEqual(at(2024, 3, 13));
    expect(parseDateMath('now/d', NOW, true)).toEqual(endOfDay(2024, 3, 13));
    expect(parseDateMath('now/h', NOW, true)).toEqual(at(2024, 3, 13, 15, 59, 59, 999));
  });

  it('clamps month arithmetic to the end of a shorter month', () => {
    expect(parseDateMath('now-1M', at(2024, 3, 31))).toEqual(at(2024, 2, 29));
    expect(parseDateMath('now-1y', at(2024, 2, 29))).toEqual(at(2023, 2, 28));
  });

  it('rejects anything else', () => {
    for (const text of ['', '2d', 'now-', 'now-2x', 'now-2d/q', 'yesterday', 'now - 2d']) {
      expect(parseDateMath(text, NOW)).toBeUndefined();
    }
  });
});

describe('relative ranges', () => {
  it('offers the past ranges of the spec', () => {
    expect(RELATIVE_RANGES.map((r) => r.range.replace('now-', ''))).toEqual([
      '5m',
      '15m',
      '30m',
      '1h',
      '3h',
      '6h',
      '12h',
      '24h',
      '2d',
      '7d',
      '30d',
      '90d',
      '6M',
      '1y',
      '2y',
      '5y',
    ]);
  });

  it('run from the offset to now', () => {
    expect(resolveTimeRange(TWO_DAYS, NOW)).toEqual({ from: at(2024, 3, 11, 15, 30), to: NOW });
    expect(resolveTimeRange({ type: 'relative', range: 'now-1h' }, NOW)).toEqual({ from: at(2024, 3, 13, 14, 30), to: NOW });
  });
});

describe('quick ranges', () => {
  it('offers the quick ranges of the spec', () => {
    expect(QUICK_RANGES).toEqual([
      'Yesterday',
      'Day before yesterday',
      'This day last week',
      'Previous week',
      'Previous month',
      'Previous year',
      'Today',
      'Today so far',
      'This week',
      'This week so far',
      'This month',
      'This month so far',
      'This year',
      'This year so far',
    ]);
  });

  it('cover whole days', () => {
    expect(quick('Yesterday')).toEqual({ from: at(2024, 3, 12), to: endOfDay(2024, 3, 12) });
    expect(quick('Day before yesterday')).toEqual({ from: at(2024, 3, 11), to: endOfDay(2024, 3, 11) });
    expect(quick('This day last week')).toEqual({ from: at(2024, 3, 6), to: endOfDay(2024, 3, 6) });
    expect(quick('Today')).toEqual({ from: at(2024, 3, 13), to: endOfDay(2024, 3, 13) });
    expect(quick('Today so far')).toEqual({ from: at(2024, 3, 13), to: NOW });
    // Across a month and a year boundary.
    expect(quick('Yesterday', at(2024, 3, 1, 8))).toEqual({ from: at(2024, 2, 29), to: endOfDay(2024, 2, 29) });
    expect(quick('Yesterday', at(2024, 1, 1, 8))).toEqual({ from: at(2023, 12, 31), to: endOfDay(2023, 12, 31) });
  });

  it('cover weeks from Monday to Sunday', () => {
    expect(quick('This week')).toEqual({ from: at(2024, 3, 11), to: endOfDay(2024, 3, 17) });
    expect(quick('This week so far')).toEqual({ from: at(2024, 3, 11), to: NOW });
    expect(quick('Previous week')).toEqual({ from: at(2024, 3, 4), to: endOfDay(2024, 3, 10) });
    // On a Sunday the week began six days before; on a Monday it begins that day.
    expect(quick('This week', at(2024, 3, 17, 10))).toEqual({ from: at(2024, 3, 11), to: endOfDay(2024, 3, 17) });
    expect(quick('This week', at(2024, 3, 18, 0))).toEqual({ from: at(2024, 3, 18), to: endOfDay(2024, 3, 24) });
    // A week spanning two years.
    expect(quick('Previous week', at(2025, 1, 2))).toEqual({ from: at(2024, 12, 23), to: endOfDay(2024, 12, 29) });
    expect(quick('This week', at(2025, 1, 2))).toEqual({ from: at(2024, 12, 30), to: endOfDay(2025, 1, 5) });
  });

  it('cover months and years', () => {
    expect(quick('This month')).toEqual({ from: at(2024, 3, 1), to: endOfDay(2024, 3, 31) });
    expect(quick('This month so far')).toEqual({ from: at(2024, 3, 1), to: NOW });
    expect(quick('Previous month')).toEqual({ from: at(2024, 2, 1), to: endOfDay(2024, 2, 29) });
    expect(quick('Previous month', at(2024, 3, 31))).toEqual({ from: at(2024, 2, 1), to: endOfDay(2024, 2, 29) });
    expect(quick('Previous month', at(2024, 1, 15))).toEqual({ from: at(2023, 12, 1), to: endOfDay(2023, 12, 31) });
    expect(quick('This year')).toEqual({ from: at(2024, 1, 1), to: endOfDay(2024, 12, 31) });
    expect(quick('This year so far')).toEqual({ from: at(2024, 1, 1), to: NOW });
    expect(quick('Previous year')).toEqual({ from: at(2023, 1, 1), to: endOfDay(2023, 12, 31) });
  });
});

describe('the URL', () => {
  it('reads a relative range', () => {
    const params = new URLSearchParams('rangeType=relative&display=Last+7+days&range=now-7d');
    expect(timeRangeFromParams(params)).toEqual({ type: 'relative', range: 'now-7d' });
    expect(timeRangeInstants(params, TWO_DAYS, NOW)).toEqual({ from: at(2024, 3, 6, 15, 30), to: NOW });
  });

  it('reads a quick range by its name', () => {
    const params = new URLSearchParams('rangeType=mapped&display=Yesterday&timeRange=Yesterday');
    expect(timeRangeFromParams(params)).toEqual({ type: 'mapped', display: 'Yesterday' });
    expect(timeRangeInstants(params, TWO_DAYS, NOW)).toEqual({ from: at(2024, 3, 12), to: endOfDay(2024, 3, 12) });
  });

  it('reads an absolute range', () => {
    const params = new URLSearchParams('rangeType=absolute&from=2024-01-01T00:00:00.000Z&to=2024-01-02T12:00:00.000Z');
    expect(timeRangeFromParams(params)).toEqual({ type: 'absolute', from: '2024-01-01T00:00:00.000Z', to: '2024-01-02T12:00:00.000Z' });
    expect(timeRangeInstants(params, TWO_DAYS, NOW)).toEqual({
      from: new Date('2024-01-01T00:00:00.000Z'),
      to: new Date('2024-01-02T12:00:00.000Z'),
    });
  });

  it('falls back to the default without a range', () => {
    expect(timeRangeFromParams(new URLSearchParams('pageIndex=2'))).toBeUndefined();
    expect(timeRangeInstants(new URLSearchParams(), TWO_DAYS, NOW)).toEqual({ from: at(2024, 3, 11, 15, 30), to: NOW });
  });

  it('logs and ignores invalid relative and quick ranges', () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(timeRangeInstants(new URLSearchParams('rangeType=relative&range=2 days'), TWO_DAYS, NOW)).toEqual({
      from: at(2024, 3, 11, 15, 30),
      to: NOW,
    });
    expect(error).toHaveBeenLastCalledWith("Invalid relative time range: '2 days'");
    expect(timeRangeFromParams(new URLSearchParams('rangeType=relative'))).toBeUndefined();
    expect(timeRangeFromParams(new URLSearchParams('rangeType=mapped&timeRange=Someday'))).toBeUndefined();
    expect(error).toHaveBeenLastCalledWith("Invalid mapped time range: 'Someday'");
    expect(timeRangeFromParams(new URLSearchParams('rangeType=mapped&timeRange=constructor'))).toBeUndefined();
    expect(timeRangeFromParams(new URLSearchParams('rangeType=absolute&from=soon&to=later'))).toBeUndefined();
    expect(error).toHaveBeenCalledTimes(5);
  });

  it('writes a range over the previous one, keeping other parameters', () => {
    const before = new URLSearchParams('status=SUCCESS:-1&rangeType=absolute&from=2024-01-01T00:00:00.000Z&to=2024-01-02T00:00:00.000Z');
    const relative = timeRangeToParams({ type: 'relative', range: 'now-30m' }, before);
    expect(Object.fromEntries(relative)).toEqual({
      status: 'SUCCESS:-1',
      rangeType: 'relative',
      display: 'Last 30 minutes',
      range: 'now-30m',
    });
    const mapped = timeRangeToParams({ type: 'mapped', display: 'This week so far' }, relative);
    expect(Object.fromEntries(mapped)).toEqual({
      status: 'SUCCESS:-1',
      rangeType: 'mapped',
      display: 'This week so far',
      timeRange: 'This week so far',
    });
    const absolute: AbsoluteRange = { type: 'absolute', from: at(2024, 1, 1).toISOString(), to: at(2024, 1, 2, 6).toISOString() };
    const written = timeRangeToParams(absolute, mapped);
    expect(written.get('display')).toBe('2024-01-01 00:00 to 2024-01-02 06:00');
    expect(timeRangeFromParams(written)).toEqual(absolute);
    expect(timeRangeLabel(absolute)).toBe('2024-01-01 00:00 to 2024-01-02 06:00');
  });
});

describe('absolute range inputs', () => {
  it('parse a local date and time', () => {
    expect(parseLocal('2024-02-29', '13:05')).toEqual(at(2024, 2, 29, 13, 5));
    expect(parseLocal('2024-02-29', '7:05')).toEqual(at(2024, 2, 29, 7, 5));
    expect(parseLocal('2023-02-29', '00:00')).toBeUndefined();
    expect(parseLocal('2024-01-01', '24:00')).toBeUndefined();
    expect(parseLocal('', '00:00')).toBeUndefined();
    expect(parseLocal('2024-01-01', '')).toBeUndefined();
  });
});

describe('recent absolute ranges', () => {
  const range = (day: number): AbsoluteRange => ({
    type: 'absolute',
    from: at(2024, 1, day).toISOString(),
    to: at(2024, 1, day + 1).toISOString(),
  });

  it('keeps the five newest, without duplicates', () => {
    let recent: AbsoluteRange[] = [];
    for (let day = 1; day <= 7; day++) recent = addRecentRange(recent, range(day));
    expect(recent).toEqual([range(7), range(6), range(5), range(4), range(3)]);
    recent = addRecentRange(recent, range(5));
    expect(recent).toEqual([range(5), range(7), range(6), range(4), range(3)]);
  });

  it('are stored and read back, ignoring corrupt entries', () => {
    const store = new Map<string, string>();
    const storage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v) };
    expect(readRecentRanges(storage)).toEqual([]);
    writeRecentRanges([range(1), range(2)], storage);
    expect(readRecentRanges(storage)).toEqual([range(1), range(2)]);
    store.set('quarterdeck.recentTimeRanges', JSON.stringify([{ from: 'x', to: 'y' }, range(3), null]));
    expect(readRecentRanges(storage)).toEqual([range(3)]);
    store.set('quarterdeck.recentTimeRanges', '{not json');
    expect(readRecentRanges(storage)).toEqual([]);
  });
});
