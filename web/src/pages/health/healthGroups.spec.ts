import { describe, expect, it } from 'vitest';
import { check } from './healthFixtures';
import { fieldValue, groupChecks, groupStatus, sortChecks, tableRows } from './healthGroups';

const names = (checks: { name: string }[]) => checks.map((c) => c.name);

describe('sortChecks', () => {
  const a = check({ name: 'alpha', status: 'healthy', uptime: { passed: 9, failed: 1 }, latency: { p95: 300 } });
  const b = check({ name: 'Bravo', status: 'unhealthy', uptime: { passed: 1, failed: 1 }, latency: { p95: 20 } });
  const c = check({ name: 'charlie', status: null, uptime: { passed: 0, failed: 0 }, latency: {} });
  const d = check({ name: 'delta-10', status: 'healthy', uptime: { passed: 5, failed: 0 }, latency: { p99: 5000 } });
  const e = check({ name: 'delta-9', status: 'unhealthy', uptime: { passed: 0, failed: 3 }, latency: { p95: 20 } });
  const all = [d, c, e, b, a];

  it('by name, ignoring case, numbers in order', () => {
    expect(names(sortChecks(all, 'name', false))).toEqual(['alpha', 'Bravo', 'charlie', 'delta-9', 'delta-10']);
    expect(names(sortChecks(all, 'name', true))).toEqual(['delta-10', 'delta-9', 'charlie', 'Bravo', 'alpha']);
  });

  it('by health: unhealthy, never run, healthy; ties by name', () => {
    expect(names(sortChecks(all, 'health', false))).toEqual(['Bravo', 'delta-9', 'charlie', 'alpha', 'delta-10']);
    expect(names(sortChecks(all, 'health', true))).toEqual(['alpha', 'delta-10', 'charlie', 'Bravo', 'delta-9']);
  });

  it('by uptime and latency, checks without figures last', () => {
    expect(names(sortChecks(all, 'uptime', false))).toEqual(['delta-9', 'Bravo', 'alpha', 'delta-10', 'charlie']);
    expect(names(sortChecks(all, 'uptime', true))).toEqual(['delta-10', 'alpha', 'Bravo', 'delta-9', 'charlie']);
    expect(names(sortChecks(all, 'latency', false))).toEqual(['Bravo', 'delta-9', 'alpha', 'delta-10', 'charlie']);
    expect(names(sortChecks(all, 'latency', true))).toEqual(['delta-10', 'alpha', 'Bravo', 'delta-9', 'charlie']);
  });

  it('does not change its input', () => {
    const input = [b, a];
    sortChecks(input, 'name', false);
    expect(input).toEqual([b, a]);
  });
});

describe('groupChecks', () => {
  const checks = [
    check({ name: 'a1', canary_name: 'shop', type: 'http', status: 'healthy', latency: { p95: 10 }, labels: { team: 'core' } }),
    check({ name: 'a2', canary_name: 'shop', type: 'dns', status: 'unhealthy', latency: { p95: 50 }, labels: { team: 'core' } }),
    check({ name: 'b1', canary_name: 'blog', type: 'http', status: 'unhealthy', description: 'Blog' }),
    check({ name: 'b2', canary_name: 'blog', type: 'http', status: 'unhealthy' }),
    check({ name: 'c1', canary_name: 'cart', type: 'tcp', status: 'healthy' }),
  ];

  it('groups by a field in the order given, sorted by group name', () => {
    const groups = groupChecks(checks, 'canary_name', 'name', false) ?? [];
    expect(groups.map((g) => [g.name, names(g.checks), g.status, g.passing])).toEqual([
      ['blog', ['b1', 'b2'], 'bad', 0],
      ['cart', ['c1'], 'good', 1],
      ['shop', ['a1', 'a2'], 'mixed', 1],
    ]);
    expect(groups[2]?.latency).toBe(50);
    expect(groupChecks(checks, 'no-group', 'name', false)).toBeUndefined();
  });

  it('groups by description, type or label; checks without a value under (none)', () => {
    expect(groupChecks(checks, 'description', 'name', false)?.map((g) => g.name)).toEqual(['(none)', 'Blog']);
    expect(groupChecks(checks, 'type', 'name', true)?.map((g) => g.name)).toEqual(['tcp', 'http', 'dns']);
    expect(groupChecks(checks, 'label:team', 'name', false)?.map((g) => [g.name, g.checks.length])).toEqual([
      ['(none)', 3],
      ['core', 2],
    ]);
  });

  it('sorts groups by health, uptime (passing share) and latency', () => {
    expect(groupChecks(checks, 'canary_name', 'health', false)?.map((g) => g.name)).toEqual(['blog', 'shop', 'cart']);
    expect(groupChecks(checks, 'canary_name', 'uptime', true)?.map((g) => g.name)).toEqual(['cart', 'shop', 'blog']);
    expect(groupChecks(checks, 'canary_name', 'latency', true)?.map((g) => g.name)).toEqual(['shop', 'blog', 'cart']);
  });

  it('status: good when all healthy, bad when all unhealthy, else mixed', () => {
    expect(groupStatus([check({ status: 'healthy' })])).toBe('good');
    expect(groupStatus([check({ status: 'unhealthy' }), check({ status: 'unhealthy' })])).toBe('bad');
    expect(groupStatus([check({ status: 'unhealthy' }), check({ status: null })])).toBe('mixed');
  });

  it('rows: groups, their checks when expanded, a group of one as its check', () => {
    const groups = groupChecks(checks, 'canary_name', 'name', false);
    const rows = (expanded: string[]) =>
      tableRows(checks, groups, new Set(expanded)).map((r) =>
        r.kind === 'group' ? `group ${r.group.name}${r.isExpanded ? ' open' : ''}` : `${r.isChild ? '  ' : ''}${r.check.name}`,
      );
    expect(rows([])).toEqual(['group blog', 'c1', 'group shop']);
    expect(rows(['shop'])).toEqual(['group blog', 'c1', 'group shop open', '  a1', '  a2']);
    expect(tableRows(checks, undefined, new Set()).map((r) => r.kind)).toEqual(['check', 'check', 'check', 'check', 'check']);
  });
});

it('reads fields to group by', () => {
  const c = check({ name: 'n', canary_name: 'k', description: '', type: 't', namespace: null, labels: { env: 'prod' } });
  expect(
    ['canary_name', 'name', 'description', 'type', 'namespace', 'label:env', 'label:none', 'owner'].map((f) => fieldValue(c, f)),
  ).toEqual(['k', 'n', undefined, 't', 'none', 'prod', undefined, undefined]);
});
