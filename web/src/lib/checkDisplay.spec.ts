import { expect, it } from 'vitest';
import { checkTitle, formatLatency, uptimePercent } from './checkDisplay';

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
