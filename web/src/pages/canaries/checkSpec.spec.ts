import { describe, expect, it } from 'vitest';
import { UI_SOURCE } from '../../lib/source';
import {
  applyCode,
  authKind,
  canaryForm,
  checkItem,
  chooseType,
  codeText,
  connectionKind,
  createBody,
  newCanaryForm,
  numberValue,
  pairRows,
  pairsValue,
  parseCode,
  parseLabels,
  readField,
  scriptKind,
  scriptText,
  setAuthKind,
  setConnectionKind,
  setMethod,
  setPath,
  setScriptKind,
  setScriptText,
  updateBody,
  withCheckItem,
  writeField,
  type CanaryRow,
} from './checkSpec';
import { checkType, preselectType } from './checkTypes';

const row = (spec: CanaryRow['spec'], source: string | null = UI_SOURCE): CanaryRow => ({
  id: 'c1',
  name: 'web',
  namespace: 'prod',
  labels: { team: 'web' },
  spec,
  source,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
});

describe('spec <-> form', () => {
  const spec = {
    schedule: '@every 1m',
    icon: 'globe',
    http: [
      { name: 'home', url: 'https://example.com', responseCodes: [200], test: { expr: 'code == 200' } },
      { name: 'second', url: 'https://example.org' },
    ],
    dns: [{ name: 'lookup', query: 'example.com' }],
  };

  it('takes schedule and icon out of the spec and puts them back', () => {
    const form = canaryForm(row(spec));
    expect(form).toEqual({
      name: 'web',
      namespace: 'prod',
      labels: { team: 'web' },
      schedule: '@every 1m',
      icon: 'globe',
      spec: { http: spec.http, dns: spec.dns },
    });
    expect(updateBody(form, checkType('http'))).toEqual({ labels: { team: 'web' }, spec });
  });

  it('edits the first item of the type list and keeps the rest', () => {
    const form = canaryForm(row(spec));
    expect(checkItem(form.spec, 'http')).toEqual(spec.http[0]);
    const edited = withCheckItem(form.spec, 'http', { ...checkItem(form.spec, 'http'), url: 'https://changed' });
    expect(edited.http).toEqual([{ ...spec.http[0], url: 'https://changed' }, spec.http[1]]);
    expect(edited.dns).toEqual(spec.dns);
    expect(checkItem({}, 'http')).toEqual({});
    expect(withCheckItem({}, 'tcp', { endpoint: 'a:1' })).toEqual({ tcp: [{ endpoint: 'a:1' }] });
  });

  it('creates a UI canary in namespace default, its check named after it', () => {
    const form = chooseType({ ...newCanaryForm(), name: ' api ' }, checkType('http'));
    const filled = { ...form, spec: withCheckItem(form.spec, 'http', { url: 'https://api', method: 'GET' }) };
    expect(createBody({ ...filled, namespace: '' }, checkType('http'))).toEqual({
      name: 'api',
      namespace: 'default',
      labels: {},
      spec: { http: [{ name: 'api', url: 'https://api', method: 'GET' }] },
      source: UI_SOURCE,
    });
  });

  it('keeps YAML-only specs as typed and drops empty scripts of a form check', () => {
    const dns = { dns: [{ query: 'example.com' }] };
    expect(createBody({ ...newCanaryForm(), name: 'd', schedule: '@hourly', spec: dns }, checkType('dns')).spec).toEqual({
      schedule: '@hourly',
      ...dns,
    });
    const form = { ...newCanaryForm(), name: 'x', spec: { exec: [{ name: 'run', script: 'true', test: { expr: ' ' } }] } };
    expect(createBody(form, checkType('exec')).spec).toEqual({ exec: [{ name: 'run', script: 'true' }] });
  });

  it('chooses a type: a new canary from its template, an existing one from its stored spec', () => {
    const form = { ...newCanaryForm(), name: 'n', spec: { http: [{ url: 'x' }] } };
    expect(chooseType(form, checkType('redis')).spec).toEqual({ redis: [{ db: 0 }] });
    expect(chooseType(form, checkType('redis')).name).toBe('n');
    const stored = { schedule: '@hourly', http: [{ url: 'stored' }] };
    expect(chooseType(form, checkType('http'), stored).spec).toEqual({ http: [{ url: 'stored' }] });
    expect(chooseType(form, checkType('tcp'), stored).spec).toEqual({ http: [{ url: 'stored' }], tcp: [{}] });
    expect(chooseType(form, checkType('custom'), stored).spec).toEqual({ http: [{ url: 'stored' }] });
  });

  it('round-trips the Code tab, moving schedule and icon to their fields', () => {
    const form = canaryForm(row(spec));
    const parsed = parseCode(codeText(form));
    expect(parsed).toEqual(form.spec);
    const moved = applyCode(form, { schedule: '@daily', icon: 'db', tcp: [{ endpoint: 'db:5432' }] });
    expect(moved).toMatchObject({ schedule: '@daily', icon: 'db', spec: { tcp: [{ endpoint: 'db:5432' }] } });
  });

  it('keeps every key of a spec that opens as Custom, through its Specs editor and back', () => {
    const settings = {
      interval: 30,
      icon: 'globe',
      schedule: '@every 1m',
      severity: 'high',
      owner: 'web',
      resultMode: 'junit',
      env: { TOKEN: { value: 't' } },
      agentSelector: ['local'],
      retries: { count: 2 },
      replicas: 1,
      http: [{ name: 'home', url: 'https://example.com' }],
      restic: [{ name: 'backup' }],
    };
    const custom = preselectType(settings);
    expect(custom.id).toBe('custom');
    const form = canaryForm(row(settings));
    const typed = parseCode(codeText(form));
    expect(typed).toBeDefined();
    expect(updateBody(applyCode(form, typed ?? {}), custom).spec).toEqual(settings);
  });
});

describe('code fields', () => {
  it('accept YAML or JSON mappings and ignore anything else', () => {
    expect(parseCode('http:\n  - url: x\n')).toEqual({ http: [{ url: 'x' }] });
    expect(parseCode('{"http": [{"url": "x"}]}')).toEqual({ http: [{ url: 'x' }] });
    expect(parseCode('')).toEqual({});
    expect(parseCode('http: [')).toBeUndefined();
    expect(parseCode('- a')).toBeUndefined();
    expect(parseCode('just text')).toBeUndefined();
  });

  it('take labels as a mapping of scalars', () => {
    expect(parseLabels('{"env": "prod", "tier": 1}')).toEqual({ env: 'prod', tier: '1' });
    expect(parseLabels('env: prod')).toEqual({ env: 'prod' });
    expect(parseLabels('{"env": {"nested": 1}}')).toBeUndefined();
    expect(parseLabels('{"env": ')).toBeUndefined();
  });
});

describe('authentication selector', () => {
  const item = { url: 'x', username: { value: 'u' }, password: { value: 'p' }, ntlm: true };

  it('reads the kind from the flags and credentials', () => {
    expect(authKind(item)).toBe('ntlm');
    expect(authKind({ ...item, ntlm: undefined, ntlmv2: true })).toBe('ntlmv2');
    expect(authKind({ username: { value: 'u' } })).toBe('basic');
    expect(authKind({ url: 'x' })).toBe('none');
  });

  it('clears the other flags and sets its own', () => {
    expect(setAuthKind(item, 'ntlmv2')).toEqual({ url: 'x', username: { value: 'u' }, password: { value: 'p' }, ntlmv2: true });
    expect(setAuthKind({ ...item, ntlmv2: true }, 'ntlm')).toEqual({
      url: 'x',
      username: { value: 'u' },
      password: { value: 'p' },
      ntlm: true,
    });
    expect(setAuthKind(item, 'basic')).toEqual({ url: 'x', username: { value: 'u' }, password: { value: 'p' } });
  });

  it('None drops the credentials too', () => {
    expect(setAuthKind(item, 'none')).toEqual({ url: 'x' });
  });
});

describe('script selector', () => {
  it('reads the kind and expression of test, display and transform', () => {
    const item = { test: { expr: 'code == 200' }, display: { template: '{{.code}}' }, transform: { jsonPath: '$.a' } };
    expect(scriptKind(item, 'test')).toBe('expr');
    expect(scriptText(item, 'test')).toBe('code == 200');
    expect(scriptKind(item, 'display')).toBe('template');
    expect(scriptKind(item, 'transform')).toBe('jsonPath');
    expect(scriptKind({}, 'test')).toBe('none');
    expect(scriptText({}, 'test')).toBe('');
  });

  it('changing the kind clears the previous expression', () => {
    const item = { url: 'x', test: { expr: 'code == 200' } };
    expect(setScriptKind(item, 'test', 'javascript')).toEqual({ url: 'x', test: { javascript: '' } });
    expect(setScriptKind(item, 'test', 'none')).toEqual({ url: 'x' });
    expect(setScriptText(setScriptKind(item, 'test', 'jsonPath'), 'test', '$.ok')).toEqual({ url: 'x', test: { jsonPath: '$.ok' } });
    expect(setScriptText({ url: 'x' }, 'test', 'ignored')).toEqual({ url: 'x' });
  });
});

describe('folder connection selector', () => {
  it('keeps only one connection', () => {
    const item = { path: 's3://b', awsConnection: { region: 'eu' } };
    expect(connectionKind(item)).toBe('aws');
    expect(setConnectionKind(item, 'smb')).toEqual({ path: 's3://b', smbConnection: {} });
    expect(setConnectionKind(item, 'none')).toEqual({ path: 's3://b' });
    expect(connectionKind({ path: '/x' })).toBe('none');
  });
});

describe('field values', () => {
  it('parses numbers to integers and keeps what is not one', () => {
    expect(numberValue('42')).toBe(42);
    expect(numberValue(' 7.9 ')).toBe(7);
    expect(numberValue('')).toBeUndefined();
    expect(numberValue('abc')).toBe('abc');
  });

  it('sets nested paths and removes blank values', () => {
    expect(setPath({}, 'filter.regex', '.*')).toEqual({ filter: { regex: '.*' } });
    expect(setPath({ filter: { regex: '.*', minAge: '1h' } }, 'filter.regex', '')).toEqual({ filter: { minAge: '1h' } });
    expect(setPath({ a: 1 }, 'a', undefined)).toEqual({});
  });

  it('reads an alias until the field is written', () => {
    const url = { path: 'url', alias: 'endpoint' };
    expect(readField({ endpoint: 'https://old' }, url)).toBe('https://old');
    expect(writeField({ endpoint: 'https://old' }, url, 'https://new')).toEqual({ url: 'https://new' });
  });

  it('drops the body for methods that send none', () => {
    expect(setMethod({ method: 'POST', body: '{}' }, 'GET')).toEqual({ method: 'GET' });
    expect(setMethod({ method: 'POST', body: '{}' }, 'PUT')).toEqual({ method: 'PUT', body: '{}' });
  });

  it('edits headers as a list and filters as a map', () => {
    const headers = [{ name: 'Accept', value: 'json' }];
    expect(pairRows(headers, 'list')).toEqual([{ key: 'Accept', value: 'json' }]);
    expect(
      pairsValue(
        [
          { key: 'Accept', value: 'json' },
          { key: '', value: '' },
        ],
        'list',
      ),
    ).toEqual([...headers, { name: '', value: '' }]);
    expect(pairRows({ severity: 'critical' }, 'map')).toEqual([{ key: 'severity', value: 'critical' }]);
    expect(
      pairsValue(
        [
          { key: 'severity', value: 'critical' },
          { key: ' ', value: 'x' },
        ],
        'map',
      ),
    ).toEqual({ severity: 'critical' });
    expect(pairsValue([], 'map')).toBeUndefined();
  });
});
