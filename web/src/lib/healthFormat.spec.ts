import { expect, it } from 'vitest';
import { durationMs, relativeAge, rowLatency, timeRangeLabel, uptimeRatio } from './healthFormat';

it('shows p95, else p97, else p99', () => {
  expect(rowLatency({ p95: 10, p97: 20, p99: 30 })).toBe(10);
  expect(rowLatency({ p95: null, p97: 20 })).toBe(20);
  expect(rowLatency({ p99: 30 })).toBe(30);
  expect(rowLatency({})).toBeUndefined();
});

it('computes uptime as passed over runs', () => {
  expect(uptimeRatio({ passed: 0, failed: 0 })).toBeUndefined();
  expect(uptimeRatio({ passed: 3, failed: 1 })).toBe(0.75);
});

it('shows compact ages within bounds only', () => {
  const now = Date.parse('2026-05-10T12:00:00Z');
  expect(relativeAge('2026-05-10T11:00:00Z', { now })).toBe('1h ago');
  expect(relativeAge('2026-05-10T11:59:30Z', { now })).toBe('30s ago');
  expect(relativeAge('2026-05-02T12:00:00Z', { now })).toBe('');
  expect(relativeAge('2026-05-10T11:30:00Z', { now, min: 3_600_001 })).toBe('');
  expect(relativeAge('2026-05-10T10:00:00Z', { now, min: 3_600_001 })).toBe('2h ago');
  expect(relativeAge(null, { now })).toBe('');
  expect(relativeAge('0001-01-01T00:00:00Z', { now })).toBe('');
});

it('reads refresh rates as a number and a unit', () => {
  expect(durationMs('15s')).toBe(15_000);
  expect(durationMs('2m')).toBe(120_000);
  expect(durationMs('1h')).toBe(3_600_000);
  expect(durationMs('1d')).toBe(86_400_000);
  expect(durationMs('1w')).toBe(604_800_000);
  expect(durationMs('')).toBeUndefined();
  expect(durationMs('0s')).toBeUndefined();
  expect(durationMs('5x')).toBeUndefined();
});

it('names time ranges', () => {
  expect(timeRangeLabel('15m')).toBe('Last 15 minutes');
  expect(timeRangeLabel('1h')).toBe('Last 1 hour');
  expect(timeRangeLabel('6mo')).toBe('Last 6 months');
  expect(timeRangeLabel('1y')).toBe('Last 1 year');
});
