import { expect, it } from 'vitest';
import { check } from './healthFixtures';
import { pivotChecks } from './healthPivot';

it('makes a row per pivot-by value and a column per label value', () => {
  const checks = [
    check({ name: 'api', status: 'healthy', uptime: { passed: 3, failed: 1 }, latency: { p95: 100 }, labels: { region: 'eu' } }),
    check({ name: 'api', status: 'unhealthy', uptime: { passed: 1, failed: 3 }, latency: { p95: 300 }, labels: { region: 'eu' } }),
    check({ name: 'api', status: 'healthy', uptime: { passed: 2, failed: 0 }, latency: {}, labels: { region: 'us' } }),
    check({ name: 'db', status: 'unhealthy', uptime: { passed: 0, failed: 0 }, latency: {}, labels: {} }),
  ];
  const pivot = pivotChecks(checks, 'name', 'region');
  expect(pivot.columns).toEqual(['(none)', 'eu', 'us']);
  expect(pivot.rows.map((r) => r.name)).toEqual(['api', 'db']);
  expect(pivot.rows[0]?.cells).toEqual([
    undefined,
    { status: 'mixed', passed: 4, failed: 4, latency: 300 },
    { status: 'good', passed: 2, failed: 0, latency: undefined },
  ]);
  expect(pivot.rows[1]?.cells).toEqual([{ status: 'bad', passed: 0, failed: 0, latency: undefined }, undefined, undefined]);
});
