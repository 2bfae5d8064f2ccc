import { describe, expect, it } from 'vitest';
import {
  SCRAPER_TYPES,
  addRetentionRow,
  buildScraperSpec,
  changeScraperType,
  detectScraperType,
  newScraperForm,
  parseScraperSpec,
  removeRetentionRow,
  setRetentionField,
  type ScraperForm,
} from './scrapers';

const REQUIRED = 'This field is required';

const set = (form: ScraperForm, fields: Record<string, string>): ScraperForm => ({ ...form, fields: { ...form.fields, ...fields } });

it('offers the types sorted by label as the spec lists them', () => {
  expect(SCRAPER_TYPES.map((t) => t.label)).toEqual([
    'Azure',
    'Azure DevOps',
    'AWS',
    'Custom',
    'File',
    'Github Actions',
    'HTTP',
    'Kubernetes',
    'Kubernetes File',
    'SQL',
    'Trivy',
  ]);
});

describe('building a spec from the fields', () => {
  it('Kubernetes: max in flight defaults to 64', () => {
    const form = newScraperForm('kubernetes');
    expect(form.fields.maxInflight).toBe('64');
    const built = buildScraperSpec({ ...set(form, { clusterName: 'prod' }), schedule: '@every 30m' });
    expect(built).toEqual({ spec: { schedule: '@every 30m', kubernetes: [{ clusterName: 'prod', maxInflight: 64 }] }, errors: {} });
    expect(Object.keys(built.spec ?? {})).toEqual(['schedule', 'kubernetes']);
  });

  it('requires the fields the spec lists, per type', () => {
    const required = (type: string) => buildScraperSpec(newScraperForm(type)).errors;
    expect(required('aws')).toEqual({});
    expect(required('azure')).toEqual({ connection: REQUIRED });
    expect(required('azureDevops')).toEqual({});
    expect(required('custom')).toEqual({ yaml: 'Add at least one scraper, e.g. kubernetes: [...]' });
    expect(required('file')).toEqual({ format: REQUIRED, icon: REQUIRED });
    expect(required('githubActions')).toEqual({ owner: REQUIRED, repository: REQUIRED });
    expect(required('http')).toEqual({ url: REQUIRED, type: REQUIRED, id: REQUIRED });
    expect(required('kubernetes')).toEqual({ clusterName: REQUIRED });
    expect(required('kubernetesFile')).toEqual({ type: REQUIRED, id: REQUIRED });
    expect(required('sql')).toEqual({ type: REQUIRED, id: REQUIRED, connection: REQUIRED, query: REQUIRED });
    expect(required('trivy')).toEqual({});
  });

  it('reports a number field that is not a number', () => {
    expect(buildScraperSpec(set(newScraperForm('kubernetes'), { clusterName: 'a', maxInflight: 'many' })).errors).toEqual({
      maxInflight: 'This field must be a number',
    });
  });

  it('writes the item type and id expressions and the file format and icon', () => {
    const http = set(newScraperForm('http'), { url: 'https://example.test', type: 'HTTP::Thing', id: '$.id' });
    expect(buildScraperSpec(http).spec).toEqual({ http: [{ url: 'https://example.test', type: 'HTTP::Thing', id: '$.id' }] });
    const file = set(newScraperForm('file'), { paths: '/etc/*.yaml', format: 'yaml', icon: 'file' });
    expect(buildScraperSpec(file).spec).toEqual({ file: [{ paths: ['/etc/*.yaml'], format: 'yaml', icon: 'file' }] });
  });

  it('splits lists, nests dotted paths and leaves empty fields out', () => {
    expect(buildScraperSpec(set(newScraperForm('aws'), { region: 'eu-west-1, us-east-1\n' })).spec).toEqual({
      aws: [{ region: ['eu-west-1', 'us-east-1'] }],
    });
    const podFile = set(newScraperForm('kubernetesFile'), {
      type: 'Pod::File',
      id: '$.path',
      'selector.labelSelector': 'app=web',
      container: '',
    });
    expect(buildScraperSpec(podFile).spec).toEqual({
      kubernetesFile: [{ type: 'Pod::File', id: '$.path', selector: { labelSelector: 'app=web' } }],
    });
  });

  it('Custom: the YAML is the spec, with the picked schedule', () => {
    const form = { ...newScraperForm('custom'), yaml: 'exec:\n  - script: echo hi\n', schedule: '@daily' };
    expect(buildScraperSpec(form).spec).toEqual({ schedule: '@daily', exec: [{ script: 'echo hi' }] });
    expect(buildScraperSpec({ ...form, schedule: '', yaml: 'schedule: "@hourly"\nexec: []\n' }).spec).toEqual({
      schedule: '@hourly',
      exec: [],
    });
    expect(buildScraperSpec({ ...form, yaml: 'exec: [' }).errors.yaml).toMatch(/at line 1, column/);
    expect(buildScraperSpec({ ...form, yaml: 'full: true' }).errors.yaml).toBe('Add at least one scraper, e.g. kubernetes: [...]');
  });

  it("Custom: the YAML is held to the ScrapeConfig CRD's schema, one problem a line", () => {
    const form = { ...newScraperForm('custom'), yaml: 'exec:\n  - script: echo hi\nfull: maybe\nkubernets: []\n' };
    expect(buildScraperSpec(form).errors.yaml?.split('\n')).toEqual(['full: must be true or false', 'kubernets: unknown field']);
    expect(buildScraperSpec({ ...form, yaml: 'exec:\n  - script: echo hi\nfull: true\n' }).errors).toEqual({});
  });
});

describe('reading an existing spec', () => {
  it('the first key other than schedule and retention selects the type; otherwise Custom', () => {
    expect(detectScraperType({ schedule: '@hourly', retention: {}, kubernetes: [{}] })).toBe('kubernetes');
    expect(detectScraperType({ retention: {}, aws: [{}], full: true })).toBe('aws');
    expect(detectScraperType({ full: true, aws: [{}] })).toBe('custom');
    expect(detectScraperType({ gcp: [{}], aws: [{}] })).toBe('custom');
    expect(detectScraperType({ schedule: '@hourly' })).toBe('custom');
    expect(detectScraperType({ kubernetes: 'not a list' })).toBe('kubernetes');
    expect(detectScraperType(null)).toBe('custom');
  });

  it('Custom keeps any spec as it was', () => {
    const spec = { schedule: '@hourly', full: true, retention: { staleItemAge: '2d' }, aws: [{ region: ['a'] }], exec: [{ script: 'x' }] };
    const form = parseScraperSpec(spec);
    expect(form.type).toBe('custom');
    expect(buildScraperSpec(form).spec).toEqual(spec);
  });

  it('a kind whose value is not a list opens empty and is saved as a list', () => {
    const form = parseScraperSpec({ kubernetes: 'not a list', full: true });
    expect(form.type).toBe('kubernetes');
    expect(form.fields.clusterName).toBe('');
    const spec = buildScraperSpec(set(form, { clusterName: 'prod' })).spec ?? {};
    expect(spec).toEqual({ kubernetes: [{ clusterName: 'prod' }], full: true });
    expect(detectScraperType(spec)).toBe('kubernetes');
  });

  it('fills the fields, and saves back what it does not show', () => {
    const spec = {
      schedule: '@every 2h',
      retention: { changes: [{ name: 'x', age: '7d' }] },
      kubernetes: [{ clusterName: 'prod', maxInflight: 10, exclusions: { name: ['junk'] } }, { clusterName: 'second' }],
    };
    const form = parseScraperSpec(spec);
    expect(form.type).toBe('kubernetes');
    expect(form.schedule).toBe('@every 2h');
    expect(form.fields).toEqual({ clusterName: 'prod', namespace: '', maxInflight: '10' });
    expect(buildScraperSpec(form).spec).toEqual(spec);

    const edited = buildScraperSpec({ ...set(form, { clusterName: 'staging', maxInflight: '' }), schedule: '' }).spec;
    expect(edited).toEqual({
      retention: spec.retention,
      kubernetes: [{ clusterName: 'staging', exclusions: { name: ['junk'] } }, { clusterName: 'second' }],
    });
    // The parsed form does not share objects with the spec it came from.
    expect(spec.kubernetes[0]?.clusterName).toBe('prod');
  });

  it('shows lists joined and unknown kinds as Custom YAML without the schedule', () => {
    expect(parseScraperSpec({ aws: [{ region: ['a', 'b'] }] }).fields.region).toBe('a, b');
    const custom = parseScraperSpec({ schedule: '@daily', exec: [{ script: 'x' }] });
    expect(custom.type).toBe('custom');
    expect(custom.schedule).toBe('@daily');
    expect(custom.yaml).toBe('exec:\n  - script: x\n');
    expect(buildScraperSpec(custom).spec).toEqual({ schedule: '@daily', exec: [{ script: 'x' }] });
  });
});

describe('retention', () => {
  it('reads its entries, requires their names and keeps what the form does not show', () => {
    const spec = {
      retention: { staleItemAge: '2d', changes: [{ name: 'diff', age: '7d', extra: 1 }], types: [{ name: 'Pod', deletedAge: '1d' }] },
      kubernetes: [{ clusterName: 'prod' }],
    };
    const form = parseScraperSpec(spec);
    expect(form.retention.changes.map((r) => r.fields)).toEqual([{ name: 'diff', age: '7d', count: '' }]);
    expect(form.retention.types.map((r) => r.fields)).toEqual([{ name: 'Pod', createdAge: '', updatedAge: '', deletedAge: '1d' }]);
    expect(buildScraperSpec(form).spec).toEqual(spec);

    const added = addRetentionRow(form, 'changes');
    expect(buildScraperSpec(added).errors).toEqual({ 'retention.changes.1.name': REQUIRED });
    const counted = setRetentionField(setRetentionField(added, 'changes', 1, 'name', 'UPDATE'), 'changes', 1, 'count', 'ten');
    expect(buildScraperSpec(counted).errors).toEqual({ 'retention.changes.1.count': 'This field must be a number' });
    const edited = removeRetentionRow(setRetentionField(counted, 'changes', 1, 'count', '10'), 'types', 0);
    expect(buildScraperSpec(edited).spec).toEqual({
      retention: {
        staleItemAge: '2d',
        changes: [
          { name: 'diff', age: '7d', extra: 1 },
          { name: 'UPDATE', count: 10 },
        ],
        types: [],
      },
      kubernetes: [{ clusterName: 'prod' }],
    });
  });

  it('a new scraper has none until an entry is added', () => {
    const form = set(newScraperForm('kubernetes'), { clusterName: 'prod' });
    expect(buildScraperSpec(form).spec).not.toHaveProperty('retention');
    const withEntry = setRetentionField(addRetentionRow(form, 'types'), 'types', 0, 'name', 'Pod');
    const spec = buildScraperSpec(withEntry).spec ?? {};
    expect(spec.retention).toEqual({ types: [{ name: 'Pod' }] });
    expect(detectScraperType(spec)).toBe('kubernetes');
  });
});

describe('changing type', () => {
  it('to Custom carries the spec built so far into the YAML', () => {
    const form = set(newScraperForm('kubernetes'), { clusterName: 'prod' });
    const custom = changeScraperType(form, 'custom');
    expect(custom.yaml).toBe('kubernetes:\n  - clusterName: prod\n    maxInflight: 64\n');
  });

  it('to another kind drops the previous kind from the spec', () => {
    const form = parseScraperSpec({ retention: { types: [] }, kubernetes: [{ clusterName: 'prod' }] });
    const http = set(changeScraperType(form, 'http'), { url: 'https://example.test', type: 'T', id: '$.id' });
    expect(buildScraperSpec(http).spec).toEqual({
      retention: { types: [] },
      http: [{ url: 'https://example.test', type: 'T', id: '$.id' }],
    });
    expect(changeScraperType(http, 'kubernetes').fields.clusterName).toBe('prod');
  });
});
