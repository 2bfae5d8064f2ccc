import { describe, expect, it } from 'vitest';
import {
  EMPTY_RULE,
  addSilencePath,
  formatDuration,
  historyParams,
  historyRequest,
  inhibitionForms,
  parseSelectors,
  silenceFieldErrors,
  parseDuration,
  recipientColumns,
  recipientOf,
  resourcePath,
  ruleColumns,
  ruleForm,
  silenceBody,
  silenceState,
  type RuleColumns,
} from './notificationModel';

describe('durations', () => {
  it('reads Go durations into nanoseconds and writes them back', () => {
    expect(parseDuration('1h30m')).toBe(5400e9);
    expect(parseDuration('90s')).toBe(90e9);
    expect(parseDuration('250ms')).toBe(250e6);
    expect(parseDuration('2d')).toBe(172800e9);
    expect(parseDuration('soon')).toBeUndefined();
    expect(parseDuration('5')).toBeUndefined();
    expect(parseDuration('')).toBeUndefined();
    expect(formatDuration(5400e9)).toBe('1h30m');
    expect(formatDuration(90e9)).toBe('1m30s');
    expect(formatDuration(null)).toBe('');
  });
});

describe('recipients', () => {
  it('stores each kind in its column and reads it back', () => {
    expect(recipientColumns({ kind: 'team', value: 't1' })).toMatchObject({ team_id: 't1', person_id: null, custom_services: null });
    expect(recipientColumns({ kind: 'connection', value: 'connection://default/slack' }).custom_services).toEqual([
      { connection: 'connection://default/slack' },
    ]);
    expect(recipientColumns({ kind: 'url', value: ' ntfy://host/topic ' }).custom_services).toEqual([{ url: 'ntfy://host/topic' }]);
    expect(recipientColumns({ kind: 'person', value: '' })).toEqual({
      person_id: null,
      team_id: null,
      playbook_id: null,
      custom_services: null,
    });
    expect(recipientOf({ person_id: null, team_id: null, playbook_id: 'p', custom_services: null })).toEqual({
      kind: 'playbook',
      value: 'p',
    });
    expect(recipientOf({ person_id: null, team_id: null, playbook_id: null, custom_services: [{ url: 'x://y' }] })).toEqual({
      kind: 'url',
      value: 'x://y',
    });
    expect(recipientOf({ person_id: null, team_id: null, playbook_id: null, custom_services: null })).toBeUndefined();
  });
});

describe('the rule form', () => {
  const valid = { ...EMPTY_RULE, name: ' r ', events: ['check.failed'], to: { kind: 'url' as const, value: 'generic+http://h/x' } };

  it('names each problem by field', () => {
    const checked = ruleColumns({ ...EMPTY_RULE, repeatInterval: 'often', groupBy: 'type' });
    expect('errors' in checked && checked.errors).toEqual({
      name: 'Name is required',
      events: 'At least one event is required',
      to: 'A recipient is required',
      repeatInterval: 'Not a duration: often (e.g. 30m, 4h)',
      groupBy: 'Group by needs Wait for',
    });
  });

  it('writes the columns and reads them back into the same form', () => {
    const form = {
      ...valid,
      repeatInterval: '4h',
      groupBy: 'type, tag:namespace',
      waitFor: '5m',
      fallback: { kind: 'team' as const, value: 't' },
      fallbackDelay: '10m',
    };
    const checked = ruleColumns(form);
    if (!('columns' in checked)) throw new Error('expected columns');
    const columns: RuleColumns = checked.columns;
    expect(columns).toMatchObject({
      name: 'r',
      namespace: 'default',
      filter: null,
      custom_services: [{ url: 'generic+http://h/x' }],
      repeat_interval: '4h',
      group_by: ['type', 'tag:namespace'],
      wait_for: 300e9,
      fallback_team_id: 't',
      fallback_delay: 600e9,
    });
    expect(ruleForm(columns)).toEqual({ ...form, name: 'r', groupBy: 'type, tag:namespace' });
  });
});

describe('inhibitions', () => {
  const valid = { ...EMPTY_RULE, name: 'r', events: ['config.unhealthy'], to: { kind: 'url' as const, value: 'generic+http://h/x' } };

  it("stores Mission Control's shape and reads it back", () => {
    const inhibitions = [
      {
        from: ' Kubernetes::Deployment ',
        to: 'Kubernetes::Pod, Kubernetes::ReplicaSet,',
        direction: 'outgoing' as const,
        depth: '2',
        soft: true,
      },
      { from: 'Kubernetes::Node', to: 'Kubernetes::Pod', direction: 'incoming' as const, depth: '', soft: false },
    ];
    const checked = ruleColumns({ ...valid, inhibitions });
    if (!('columns' in checked)) throw new Error('expected columns');
    expect(checked.columns.inhibitions).toEqual([
      { from: 'Kubernetes::Deployment', to: ['Kubernetes::Pod', 'Kubernetes::ReplicaSet'], direction: 'outgoing', depth: 2, soft: true },
      { from: 'Kubernetes::Node', to: ['Kubernetes::Pod'], direction: 'incoming' },
    ]);
    expect(ruleForm(checked.columns).inhibitions).toEqual([
      { from: 'Kubernetes::Deployment', to: 'Kubernetes::Pod, Kubernetes::ReplicaSet', direction: 'outgoing', depth: '2', soft: true },
      inhibitions[1],
    ]);
    const none = ruleColumns(valid);
    expect('columns' in none && none.columns.inhibitions).toBeNull();
  });

  it('names the row and field of each problem', () => {
    const checked = ruleColumns({
      ...valid,
      inhibitions: [
        { from: 'a', to: 'b', direction: 'all', depth: '', soft: false },
        { from: ' ', to: ' , ', direction: 'all', depth: '1.5', soft: false },
      ],
    });
    expect('errors' in checked && checked.errors).toEqual({
      'inhibitions[1].from': 'The resource type that inhibits is required',
      'inhibitions[1].to': 'At least one resource type is required',
      'inhibitions[1].depth': 'Depth is a whole number, 1 or more',
    });
  });

  it('reads what another writer stored as well as it can', () => {
    expect(inhibitionForms(null)).toEqual([]);
    expect(inhibitionForms([{ from: 'x', to: ['y', 3], direction: 'sideways' }, 'junk'])).toEqual([
      { from: 'x', to: 'y', direction: 'outgoing', depth: '', soft: false },
    ]);
  });
});

describe('silences', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const form = {
    name: 's',
    description: '',
    targetType: 'config' as const,
    targetId: 'c1',
    recursive: true,
    filter: '',
    selectors: '',
    duration: '1d' as const,
  };

  it('needs a name and a resource, a filter or selectors; until is the duration itself', () => {
    const checked = silenceBody({ ...form, name: '', targetId: '' });
    expect('errors' in checked && checked.errors).toEqual({
      name: 'Name is required',
      target: 'A resource, a filter or selectors are required',
    });
    const ok = silenceBody(form);
    expect('body' in ok && ok.body).toEqual({
      name: 's',
      description: null,
      filter: null,
      selectors: null,
      resource_id: 'c1',
      recursive: true,
      until: '1d',
    });
    const check = silenceBody({ ...form, targetType: 'check', duration: 'indefinitely' });
    expect('body' in check && check.body).toMatchObject({ resource_id: 'c1', recursive: false, until: 'indefinitely' });
    const byFilter = silenceBody({ ...form, targetId: '', filter: " check.name == 'x' " });
    expect('body' in byFilter && byFilter.body).toMatchObject({ resource_id: null, filter: "check.name == 'x'", recursive: false });
    const bySelectors = silenceBody({ ...form, targetId: '', selectors: '- types: [http]\n  namespace: web\n' });
    expect('body' in bySelectors && bySelectors.body).toMatchObject({
      resource_id: null,
      filter: null,
      selectors: [{ types: ['http'], namespace: 'web' }],
    });
    const wrong = silenceBody({ ...form, targetId: '', selectors: 'types: [http]' });
    expect('errors' in wrong && wrong.errors).toEqual({ selectors: 'selectors: must be a list of resource selectors' });
  });

  it('reads selectors as YAML or JSON, a list of objects', () => {
    expect(parseSelectors('  ')).toEqual({ selectors: null });
    expect(parseSelectors('[]')).toEqual({ selectors: null });
    expect(parseSelectors('[{"name": "db"}]')).toEqual({ selectors: [{ name: 'db' }] });
    expect(parseSelectors('- name: db\n- 3')).toEqual({ error: 'selectors[1]: must be a resource selector (an object)' });
    expect(parseSelectors('- [unclosed')).toMatchObject({ error: expect.stringMatching(/^selectors: not YAML or JSON: /) });
  });

  it("shows the server's problems under the form's fields", () => {
    expect(
      silenceFieldErrors([
        { field: 'selectors[0]', message: 'selectors[0]: unknown' },
        { field: 'resource', message: 'resource: a silence needs a matcher' },
        { field: 'filter', message: 'filter: undeclared reference' },
        { field: 'until', message: 'until: before from' },
      ]),
    ).toEqual({
      selectors: 'selectors[0]: unknown',
      target: 'resource: a silence needs a matcher',
      filter: 'filter: undeclared reference',
    });
  });

  it('is active, scheduled or expired', () => {
    const t = now.getTime();
    expect(silenceState({ from: null, until: null }, t)).toBe('active');
    expect(silenceState({ from: '2026-01-02T00:00:00Z', until: null }, t)).toBe('scheduled');
    expect(silenceState({ from: null, until: '2025-12-31T00:00:00Z' }, t)).toBe('expired');
  });

  it('opens from a send whose resource a silence can name', () => {
    expect(addSilencePath('config.unhealthy', 'c1')).toBe('/notifications/silences/add?resourceType=config&resourceId=c1');
    expect(addSilencePath('incident.created', 'i1')).toBeUndefined();
  });
});

describe('the history', () => {
  it('keeps its filters in the URL; all means none', () => {
    expect(historyParams(new URLSearchParams('status=failed&resourceType=all&search=%20db%20&page=2&pageSize=1000'), 50)).toEqual({
      status: 'failed',
      resourceType: undefined,
      search: 'db',
      includeDeleted: false,
      page: 2,
      pageSize: 1000,
    });
    expect(historyParams(new URLSearchParams('page=-1&includeDeletedResources=true'), 50)).toMatchObject({
      page: 1,
      pageSize: 50,
      includeDeleted: true,
    });
  });

  it('asks the summary call for the page (from 0), at most 1000 sends', () => {
    const params = historyParams(new URLSearchParams('status=failed&resourceType=config&search=db&page=3&pageSize=5000'), 50);
    expect(historyRequest(params)).toEqual({
      pageIndex: 2,
      pageSize: 1000,
      status: 'failed',
      resourceType: 'config',
      search: 'db',
      includeDeletedResources: false,
      resourceId: null,
    });
    // One resource's sends: whatever its kind, deleted since or not.
    expect(historyRequest(params, 'r1')).toMatchObject({ resourceId: 'r1', resourceType: null, includeDeletedResources: true });
  });

  it('links each resource kind to its page', () => {
    expect(resourcePath('check.failed', 'x')).toBe('/health?checkId=x&timeRange=1h');
    expect(resourcePath('config.updated', 'x')).toBe('/catalog/x');
    expect(resourcePath('canary.failed', 'x')).toBeUndefined();
  });
});
