import { expect, it } from 'vitest';
import { checkTitle, durationMs, formatLatency, relativeAge, rowLatency, uptimePercent, uptimeRatio } from './healthFormat';

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

it('shows latency under 1000 ms in whole ms', () => {
  expect(formatLatency(0)).toBe('0ms');
  expect(formatLatency(96.9)).toBe('97ms');
  expect(formatLatency(999.4)).toBe('999ms');
});

it('shows latency in s, m and h above that', () => {
  expect(formatLatency(1000)).toBe('1s');
  expect(formatLatency(1500)).toBe('1.5s');
  expect(formatLatency(59_999)).toBe('60s');
  expect(formatLatency(60_000)).toBe('1m');
  expect(formatLatency(90_000)).toBe('1.5m');
  expect(formatLatency(3_599_999)).toBe('60m');
  expect(formatLatency(3_600_000)).toBe('1h');
  expect(formatLatency(5_400_000)).toBe('1.5h');
  expect(formatLatency(12_345)).toBe('12.3s');
});

it('shows a dash without a latency', () => {
  expect(formatLatency(null)).toBe('-');
  expect(formatLatency(undefined)).toBe('-');
  expect(formatLatency(NaN)).toBe('-');
});

it('computes uptime as passed over all runs', () => {
  expect(uptimePercent(3, 1)).toBe('75.00%');
  expect(uptimePercent(2, 1)).toBe('66.67%');
  expect(uptimePercent(2, 1, 1)).toBe('66.7%');
  expect(uptimePercent(10, 0)).toBe('100.00%');
  expect(uptimePercent(0, 4)).toBe('0.00%');
  expect(uptimePercent(0, 0)).toBe('-');
});

it('titles a check by name, then description, then endpoint', () => {
  expect(checkTitle({ name: 'api', description: 'The API', endpoint: 'http://api' })).toBe('api');
  expect(checkTitle({ name: '', description: 'The API', endpoint: 'http://api' })).toBe('The API');
  expect(checkTitle({ name: '', description: null, endpoint: 'http://api' })).toBe('http://api');
  expect(checkTitle({ name: '' })).toBe('');
});
