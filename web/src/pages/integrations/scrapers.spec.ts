import { describe, expect, it } from 'vitest';
import {
  SCRAPER_TYPES,
  buildScraperSpec,
  changeScraperType,
  detectScraperType,
  newScraperForm,
  parseScraperSpec,
  type ScraperForm,
} from './scrapers';

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

  it('reports required and numeric fields', () => {
    expect(buildScraperSpec(newScraperForm('kubernetes')).errors).toEqual({ clusterName: 'Cluster name is required' });
    expect(buildScraperSpec(set(newScraperForm('kubernetes'), { clusterName: 'a', maxInflight: 'many' })).errors).toEqual({
      maxInflight: 'Max in flight must be a number',
    });
    expect(buildScraperSpec(newScraperForm('sql')).errors).toEqual({ connection: 'Connection is required', query: 'Query is required' });
  });

  it('splits lists, nests dotted paths and leaves empty fields out', () => {
    expect(buildScraperSpec(set(newScraperForm('aws'), { region: 'eu-west-1, us-east-1\n' })).spec).toEqual({
      aws: [{ region: ['eu-west-1', 'us-east-1'] }],
    });
    expect(buildScraperSpec(set(newScraperForm('kubernetesFile'), { 'selector.labelSelector': 'app=web', container: '' })).spec).toEqual({
      kubernetesFile: [{ selector: { labelSelector: 'app=web' } }],
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
});

describe('reading an existing spec', () => {
  it('the first key other than schedule and retention selects the type; otherwise Custom', () => {
    expect(detectScraperType({ schedule: '@hourly', retention: {}, kubernetes: [{}] })).toBe('kubernetes');
    expect(detectScraperType({ full: true, aws: [{}] })).toBe('aws');
    expect(detectScraperType({ gcp: [{}], aws: [{}] })).toBe('custom');
    expect(detectScraperType({ schedule: '@hourly' })).toBe('custom');
    expect(detectScraperType({ kubernetes: 'not a list' })).toBe('custom');
    expect(detectScraperType(null)).toBe('custom');
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

describe('changing type', () => {
  it('to Custom carries the spec built so far into the YAML', () => {
    const form = set(newScraperForm('kubernetes'), { clusterName: 'prod' });
    const custom = changeScraperType(form, 'custom');
    expect(custom.yaml).toBe('kubernetes:\n  - clusterName: prod\n    maxInflight: 64\n');
  });

  it('to another kind drops the previous kind from the spec', () => {
    const form = parseScraperSpec({ retention: { types: [] }, kubernetes: [{ clusterName: 'prod' }] });
    const http = set(changeScraperType(form, 'http'), { url: 'https://example.test' });
    expect(buildScraperSpec(http).spec).toEqual({ retention: { types: [] }, http: [{ url: 'https://example.test' }] });
    expect(changeScraperType(http, 'kubernetes').fields.clusterName).toBe('prod');
  });
});
