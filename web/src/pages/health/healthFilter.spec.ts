import { describe, expect, it } from 'vitest';
import { activeFilterCount, filterChecks, labelChoices, labelSelectionText, tabsFor, type CheckFilter } from './healthFilter';
import { check } from './healthFixtures';

const NONE: CheckFilter = { query: '', hidePassing: false, labels: {}, tabBy: 'namespace' };
const names = (checks: { name: string }[]) => checks.map((c) => c.name);

describe('filterChecks', () => {
  const api = check({ name: 'api', description: 'Public API', endpoint: 'https://api.example.com', status: 'unhealthy' });
  const db = check({ name: 'db', description: 'Postgres', endpoint: 'postgres://db:5432', namespace: 'data' });
  const web = check({ name: 'web', endpoint: 'https://www.example.com', namespace: null, status: null });
  const all = [api, db, web];

  it('hides passing checks', () => {
    expect(names(filterChecks(all, { ...NONE, hidePassing: true }))).toEqual(['api', 'web']);
    expect(names(filterChecks(all, NONE))).toEqual(['api', 'db', 'web']);
  });

  it('searches name, description and endpoint, ignoring case', () => {
    expect(names(filterChecks(all, { ...NONE, query: 'POSTGRES' }))).toEqual(['db']);
    expect(names(filterChecks(all, { ...NONE, query: 'example.com' }))).toEqual(['api', 'web']);
    expect(names(filterChecks(all, { ...NONE, query: ' public ' }))).toEqual(['api']);
    expect(names(filterChecks(all, { ...NONE, query: 'canary' }))).toEqual([]);
  });

  it('keeps the selected tab', () => {
    expect(names(filterChecks(all, { ...NONE, tab: 'data' }))).toEqual(['db']);
    expect(names(filterChecks(all, { ...NONE, tab: 'none' }))).toEqual(['web']);
    expect(names(filterChecks(all, { ...NONE, tabBy: 'agent', tab: 'other' }))).toEqual([]);
  });

  it("includes any of a key's values, all keys, and excludes", () => {
    const checks = [
      check({ name: 'a', labels: { env: 'prod', team: 'core' } }),
      check({ name: 'b', labels: { env: 'dev', team: 'core' } }),
      check({ name: 'c', labels: { env: 'qa', team: 'edge', critical: true } }),
      check({ name: 'd', labels: {} }),
    ];
    const run = (labels: CheckFilter['labels']) => names(filterChecks(checks, { ...NONE, labels }));
    expect(run({ 'env=prod': 1, 'env=qa': 1 })).toEqual(['a', 'c']);
    expect(run({ 'env=prod': 1, 'env=qa': 1, 'team=core': 1 })).toEqual(['a']);
    expect(run({ 'env=dev': -1 })).toEqual(['a', 'c', 'd']);
    expect(run({ 'critical=true': 1 })).toEqual(['c']);
    expect(run({ 'critical=true': -1 })).toEqual(['a', 'b', 'd']);
    expect(run({ 'team=core': 1, 'env=dev': -1 })).toEqual(['a']);
  });
});

describe('labelChoices', () => {
  it('lists keys and values, sorted, and spots boolean labels', () => {
    const checks = [
      check({ labels: { team: 'core', critical: 'true' } }),
      check({ labels: { team: 'edge', critical: false, env: 'prod' } }),
      check({ labels: { team: 'core', env: 'dev' } }),
    ];
    expect(labelChoices(checks)).toEqual([
      { key: 'critical', values: ['false', 'true'], isBoolean: true },
      { key: 'env', values: ['dev', 'prod'], isBoolean: false },
      { key: 'team', values: ['core', 'edge'], isBoolean: false },
    ]);
  });
});

describe('tabsFor', () => {
  it('puts All first, then the values sorted; namespaces fall back to none', () => {
    const checks = [check({ namespace: 'zeta' }), check({ namespace: 'alpha' }), check({ namespace: null }), check({ namespace: 'alpha' })];
    expect(tabsFor(checks, 'namespace')).toEqual([
      { title: 'All' },
      { value: 'alpha', title: 'alpha' },
      { value: 'none', title: 'none' },
      { value: 'zeta', title: 'zeta' },
    ]);
  });

  it('shows agent names, and label values of checks that have the label', () => {
    const checks = [
      check({ agent_id: 'a2', labels: { team: 'edge' } }),
      check({ agent_id: 'a1', labels: { team: 'core' } }),
      check({ agent_id: 'a3' }),
    ];
    const agents = new Map([
      ['a1', 'zulu'],
      ['a2', 'alpha'],
    ]);
    expect(tabsFor(checks, 'agent', agents)).toEqual([
      { title: 'All' },
      { value: 'a3', title: 'a3' },
      { value: 'a2', title: 'alpha' },
      { value: 'a1', title: 'zulu' },
    ]);
    expect(tabsFor(checks, 'label:team').map((t) => t.title)).toEqual(['All', 'core', 'edge']);
  });
});

it('counts active filters', () => {
  expect(activeFilterCount(true, {})).toBe(1);
  expect(activeFilterCount(false, { 'a=1': 1, 'b=2': -1 })).toBe(2);
});

it('collapses label choices to counts at 4 or more', () => {
  expect(labelSelectionText([], [])).toBe('Any');
  expect(labelSelectionText(['prod', 'qa'], ['dev'])).toBe('prod, qa, !dev');
  expect(labelSelectionText(['a', 'b', 'c', 'd'], [])).toBe('including 4 labels');
  expect(labelSelectionText(['a', 'b', 'c'], ['d'])).toBe('including 3 labels, excluding 1 label');
  expect(labelSelectionText([], ['a', 'b', 'c', 'd'])).toBe('excluding 4 labels');
});
