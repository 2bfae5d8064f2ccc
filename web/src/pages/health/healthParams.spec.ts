import { describe, expect, it } from 'vitest';
import { DEFAULT_PARAMS, parseHealthParams, parseLabels, serializeLabels, withHealthParams, type HealthParams } from './healthParams';

const parse = (query: string) => parseHealthParams(new URLSearchParams(query));

describe('parseHealthParams', () => {
  it('reads defaults from an empty query', () => {
    expect(parse('')).toEqual({ ...DEFAULT_PARAMS, checkId: undefined, tab: undefined, pivotBy: undefined, pivotLabel: undefined });
    expect(DEFAULT_PARAMS).toMatchObject({
      timeRange: '1h',
      layout: 'table',
      groupBy: 'canary_name',
      tabBy: 'namespace',
      hidePassing: true,
      sortBy: 'name',
      sortDesc: false,
    });
  });

  it('reads every parameter', () => {
    const params = parse(
      'checkId=c1&timeRange=1w&layout=card&query=api&groupBy=label:team&tabBy=agent&tab=a1&hidePassing=false' +
        '&labels=%7B%22env%3Dprod%22%3A1%7D&sortBy=latency&sortDesc=true&pivotBy=name&pivotLabel=env&pivotCellType=uptime',
    );
    expect(params).toEqual<HealthParams>({
      checkId: 'c1',
      timeRange: '1w',
      layout: 'card',
      query: 'api',
      groupBy: 'label:team',
      tabBy: 'agent',
      tab: 'a1',
      hidePassing: false,
      labels: { 'env=prod': 1 },
      sortBy: 'latency',
      sortDesc: true,
      pivotBy: 'name',
      pivotLabel: 'env',
      pivotCellType: 'uptime',
    });
  });

  it('falls back to the defaults for unknown values', () => {
    const params = parse('timeRange=4h&layout=grid&groupBy=owner&tabBy=label:&sortBy=age&sortDesc=yes&pivotBy=no-group&pivotCellType=x');
    expect(params).toMatchObject({
      timeRange: '1h',
      layout: 'table',
      groupBy: 'canary_name',
      tabBy: 'namespace',
      sortBy: 'name',
      sortDesc: false,
      pivotBy: undefined,
      pivotCellType: 'health',
    });
    expect(parse('groupBy=no-group').groupBy).toBe('no-group');
    expect(parse('hidePassing=true').hidePassing).toBe(true);
  });
});

describe('labels', () => {
  it('keeps entries of 1 and -1 only', () => {
    expect(parseLabels('{"a=1":1,"b=2":-1,"c=3":0,"d=4":"1","e=5":true}')).toEqual({ 'a=1': 1, 'b=2': -1 });
    expect(parseLabels('not json')).toEqual({});
    expect(parseLabels('[1]')).toEqual({});
    expect(parseLabels('null')).toEqual({});
    expect(parseLabels(null)).toEqual({});
  });

  it('ignores __proto__ and constructor', () => {
    const labels = parseLabels('{"__proto__":1,"constructor":-1,"env=prod":1}');
    expect(Object.keys(labels)).toEqual(['env=prod']);
    expect(Object.getPrototypeOf(labels)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(parseLabels('{"__proto__":{"polluted":1}}')).toEqual({});
    expect(serializeLabels(labels)).toBe('{"env=prod":1}');
  });

  it('serialises with sorted keys, none when empty', () => {
    expect(serializeLabels({ 'b=1': -1, 'a=1': 1 })).toBe('{"a=1":1,"b=1":-1}');
    expect(serializeLabels({})).toBeUndefined();
  });
});

describe('withHealthParams', () => {
  it('round-trips every parameter', () => {
    const params: HealthParams = {
      checkId: 'c1',
      timeRange: '3mo',
      layout: 'card',
      query: 'a b&c',
      groupBy: 'no-group',
      tabBy: 'label:team',
      tab: 'core',
      hidePassing: false,
      labels: { 'env=prod': 1, 'flag=true': -1 },
      sortBy: 'uptime',
      sortDesc: true,
      pivotBy: 'label:region',
      pivotLabel: 'env',
      pivotCellType: 'latency',
    };
    const search = withHealthParams(new URLSearchParams(), params);
    expect(parseHealthParams(new URLSearchParams(search.toString()))).toEqual(params);
  });

  it('leaves defaults out and keeps other parameters', () => {
    const search = withHealthParams(new URLSearchParams('other=1&query=x&hidePassing=false'), {
      query: '',
      hidePassing: true,
      timeRange: '1h',
      sortDesc: false,
      labels: {},
      checkId: undefined,
    });
    expect(search.toString()).toBe('other=1');
    expect(withHealthParams(search, { hidePassing: false, sortBy: 'health' }).toString()).toBe('other=1&hidePassing=false&sortBy=health');
  });
});
