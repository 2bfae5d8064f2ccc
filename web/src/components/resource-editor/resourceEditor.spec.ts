import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { labelsText, parseLabels, scheduleOptions, SCHEDULES, specText, withSpecKey } from './resourceEditor';
import { crdSpecSchema, schemaProblems, specProblems, type SpecSchema } from './specSchema';

describe('scheduleOptions', () => {
  it('offers None, then the schedules in the spec order', () => {
    expect(scheduleOptions(undefined, 'The default').map((o) => o.value)).toEqual(['', ...SCHEDULES]);
    expect(SCHEDULES).toEqual(['@every 30s', '@every 1m', '@every 5m', '@every 30m', '@hourly', '@every 6h', '@daily', '@weekly']);
    expect(scheduleOptions(undefined, 'The default')[0]).toEqual({ value: '', label: 'None', description: 'The default' });
  });

  it('keeps the current value when it is another one, once', () => {
    expect(scheduleOptions('@every 2m', '').map((o) => o.value)).toEqual(['', ...SCHEDULES, '@every 2m']);
    expect(scheduleOptions('@daily', '')).toHaveLength(SCHEDULES.length + 1);
  });
});

describe('parseLabels', () => {
  it('reads a JSON object of strings; empty text is no labels', () => {
    expect(parseLabels('{"team": "payments"}')).toEqual({ labels: { team: 'payments' } });
    expect(parseLabels('  ')).toEqual({ labels: {} });
  });

  it('names why labels are ignored', () => {
    expect(parseLabels('{team: payments')).toEqual({ problem: 'Not valid JSON' });
    expect(parseLabels('["a"]')).toEqual({ problem: 'Not a JSON object' });
    expect(parseLabels('null')).toEqual({ problem: 'Not a JSON object' });
    expect(parseLabels('{"replicas": 3}')).toEqual({ problem: 'The value of replicas is not a string' });
  });

  it('shows labels as indented JSON, {} for none', () => {
    expect(labelsText({ a: 'b' })).toBe('{\n  "a": "b"\n}');
    expect(labelsText(null)).toBe('{}');
  });
});

describe('withSpecKey', () => {
  it('sets and removes a top-level key, keeping the rest of the text', () => {
    const text = '# the shop\ntype: App\nschedule: "@every 5m"\ncomponents:\n  - name: api\n';
    const set = withSpecKey(text, 'schedule', '@daily') ?? '';
    expect(set).toContain('# the shop');
    expect(parse(set)).toEqual({ type: 'App', schedule: '@daily', components: [{ name: 'api' }] });
    expect(parse(withSpecKey(text, 'icon', 'postgres') ?? '')).toMatchObject({ icon: 'postgres', type: 'App' });
    expect(parse(withSpecKey(text, 'schedule', undefined) ?? '')).toEqual({ type: 'App', components: [{ name: 'api' }] });
  });

  it('writes into an empty spec; refuses text that is not a mapping', () => {
    expect(parse(withSpecKey('', 'icon', 'aws') ?? '')).toEqual({ icon: 'aws' });
    expect(withSpecKey('', 'icon', undefined)).toBe('');
    expect(withSpecKey('type: [', 'icon', 'aws')).toBeUndefined();
    expect(withSpecKey('- a\n- b\n', 'icon', 'aws')).toBeUndefined();
  });

  it('reads a text key back', () => {
    expect(specText({ icon: 'aws', schedule: 5 }, 'icon')).toBe('aws');
    expect(specText({ icon: 'aws', schedule: 5 }, 'schedule')).toBeUndefined();
    expect(specText(undefined, 'icon')).toBeUndefined();
  });
});

describe('schemaProblems', () => {
  const schema: SpecSchema = {
    type: 'object',
    properties: {
      schedule: { type: 'string', nullable: true },
      limit: { type: 'integer' },
      items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
      free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      tags: { type: 'object', additionalProperties: { type: 'string' } },
    },
  };

  it('accepts what the schema allows, nulls included', () => {
    expect(schemaProblems({ schedule: null, limit: 3, items: [{ name: 'a' }], free: { any: [1] }, tags: { a: 'b' } }, schema)).toEqual([]);
  });

  it('names each refused value by its path', () => {
    expect(
      schemaProblems({ schedule: 5, limit: 1.5, items: [{ name: 'a' }, { name: 2, extra: 1 }], tags: { a: 1 }, sched: 'x' }, schema),
    ).toEqual([
      'schedule: must be a string',
      'limit: must be a whole number',
      'items[1].name: must be a string',
      'items[1].extra: unknown field',
      'tags.a: must be a string',
      'sched: unknown field',
    ]);
    expect(schemaProblems({ items: {} }, schema)).toEqual(['items: must be a list']);
  });

  it('gives the YAML error before the schema', () => {
    expect(specProblems({ error: 'bad YAML' }, schema)).toEqual(['bad YAML']);
    expect(specProblems({ value: { limit: 'x' } }, schema)).toEqual(['limit: must be a whole number']);
  });
});

describe('crdSpecSchema', () => {
  it('reads the spec schema of a CRD', () => {
    const crd =
      'spec:\n  versions:\n    - schema:\n        openAPIV3Schema:\n          properties:\n            spec:\n              type: object\n';
    expect(crdSpecSchema(crd)).toEqual({ type: 'object' });
    expect(crdSpecSchema('kind: Other\n')).toEqual({});
  });
});
