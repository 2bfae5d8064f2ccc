import { expect, it } from 'vitest';
import { TIME_RANGES, TIME_WINDOW_MINUTES, defaultTimeRange, isTimeRange, rangeStart, timeRangeLabel } from './checkTimeRange';

const NOW = Date.parse('2026-03-04T12:00:00.000Z');
const ago = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString();

it('offers the ranges of the spec with their windows', () => {
  const spec =
    '15m=15, 1h=60, 2h=120, 3h=180, 6h=360, 12h=720, 1d=1440, 2d=2880, 3d=4320, 1w=10080, 2w=20160, 3w=30240, ' +
    '1mo=43200, 2mo=86400, 3mo=129600, 6mo=259200, 1y=518400, 2y=1036800, 3y=1555200, 5y=2592000';
  expect(TIME_RANGES.map((range) => `${range}=${TIME_WINDOW_MINUTES[range]}`).join(', ')).toBe(spec);
});

it('opens with 1h for a run under 60 minutes old, or none', () => {
  expect(defaultTimeRange(ago(0), NOW)).toBe('1h');
  expect(defaultTimeRange(ago(59.9), NOW)).toBe('1h');
  expect(defaultTimeRange(null, NOW)).toBe('1h');
  expect(defaultTimeRange(undefined, NOW)).toBe('1h');
  expect(defaultTimeRange('not a date', NOW)).toBe('1h');
  expect(defaultTimeRange(ago(-30), NOW)).toBe('1h');
});

it('steps through wider ranges as the last run gets older', () => {
  expect(defaultTimeRange(ago(60), NOW)).toBe('3h');
  expect(defaultTimeRange(ago(179), NOW)).toBe('3h');
  expect(defaultTimeRange(ago(180), NOW)).toBe('6h');
  expect(defaultTimeRange(ago(360), NOW)).toBe('12h');
  expect(defaultTimeRange(ago(720), NOW)).toBe('1d');
  expect(defaultTimeRange(ago(1440), NOW)).toBe('2d');
  expect(defaultTimeRange(ago(2880), NOW)).toBe('3d');
  expect(defaultTimeRange(ago(4320), NOW)).toBe('1w');
  expect(defaultTimeRange(ago(10080), NOW)).toBe('2w');
  expect(defaultTimeRange(ago(20160), NOW)).toBe('3w');
  expect(defaultTimeRange(ago(30240), NOW)).toBe('1mo');
  expect(defaultTimeRange(ago(43200), NOW)).toBe('2mo');
  expect(defaultTimeRange(ago(86400), NOW)).toBe('3mo');
  expect(defaultTimeRange(ago(129600), NOW)).toBe('6mo');
  expect(defaultTimeRange(ago(259200), NOW)).toBe('1y');
  expect(defaultTimeRange(ago(518400), NOW)).toBe('2y');
  expect(defaultTimeRange(ago(1036800), NOW)).toBe('3y');
  expect(defaultTimeRange(ago(1555199), NOW)).toBe('3y');
});

it('gives 5y to runs older than 3y', () => {
  expect(defaultTimeRange(ago(1555200), NOW)).toBe('5y');
  expect(defaultTimeRange(ago(10_000_000), NOW)).toBe('5y');
});

it('recognises ranges and writes their start in minutes', () => {
  expect(isTimeRange('1mo')).toBe(true);
  expect(isTimeRange('4h')).toBe(false);
  expect(isTimeRange(null)).toBe(false);
  expect(rangeStart('1h')).toBe('60m');
  expect(rangeStart('1mo')).toBe('43200m');
});

it('names time ranges', () => {
  expect(timeRangeLabel('15m')).toBe('Last 15 minutes');
  expect(timeRangeLabel('1h')).toBe('Last 1 hour');
  expect(timeRangeLabel('6mo')).toBe('Last 6 months');
  expect(timeRangeLabel('1y')).toBe('Last 1 year');
});
