import { describe, expect, it } from 'vitest';
import { badTags, changesRequest, parseChangesParams, withChangesParams } from './changesParams';

const parse = (query: string) => parseChangesParams(new URLSearchParams(query));

describe('changes params', () => {
  it('reads defaults from an empty URL', () => {
    expect(parse('')).toMatchObject({
      configTypes: [],
      severities: [],
      recursive: 'none',
      depth: 5,
      includeDeleted: undefined,
      sortBy: 'created_at',
      sortDesc: true,
      page: 1,
      pageSize: undefined,
    });
  });

  it('reads lists, sort, paging and the open change', () => {
    const p = parse(
      'configType=Kubernetes::Pod,Kubernetes::Node&severity=high&sortBy=severity&page=3&pageSize=100&change=c1&includeDeleted=true',
    );
    expect(p.configTypes).toEqual(['Kubernetes::Pod', 'Kubernetes::Node']);
    expect(p.severities).toEqual(['high']);
    expect(p).toMatchObject({ sortBy: 'severity', sortDesc: false, page: 3, pageSize: 100, change: 'c1', includeDeleted: true });
  });

  it('drops values it does not know', () => {
    expect(parse('sortBy=-password&page=0&pageSize=7&recursive=sideways&depth=99')).toMatchObject({
      sortBy: 'created_at',
      sortDesc: true,
      page: 1,
      pageSize: undefined,
      recursive: 'none',
      depth: 5,
    });
  });

  it('resets the page on a filter change but not on paging or opening a change', () => {
    const start = new URLSearchParams('page=4&severity=low');
    expect(withChangesParams(start, { severities: ['low', 'high'] }).toString()).toBe('severity=low%2Chigh');
    expect(withChangesParams(start, { page: 5 }).get('page')).toBe('5');
    expect(withChangesParams(start, { change: 'x' }).get('page')).toBe('4');
  });

  it('keeps the sort as one parameter, the default left out', () => {
    const asc = withChangesParams(new URLSearchParams(), { sortBy: 'summary', sortDesc: false });
    expect(asc.get('sortBy')).toBe('summary');
    expect(withChangesParams(asc, { sortDesc: true }).get('sortBy')).toBe('-summary');
    expect(withChangesParams(asc, { sortBy: 'created_at', sortDesc: true }).has('sortBy')).toBe(false);
  });

  it('builds the search, one item and its relatives only with configId', () => {
    const p = parse('changeType=diff&source=kubernetes, ,git&tags=env=prod&recursive=all&depth=2&summary=%20replicas%20');
    const range = { from: new Date('2024-01-01T00:00:00Z'), to: new Date('2024-01-02T00:00:00Z') };
    expect(changesRequest(p, { range, includeDeleted: false, pageSize: 50 })).toEqual({
      type: 'diff',
      source: 'kubernetes,git',
      tags: 'env=prod',
      summary: 'replicas',
      include_deleted_configs: false,
      sort_by: '-created_at',
      page: 1,
      page_size: 50,
      from: '2024-01-01T00:00:00.000Z',
      to: '2024-01-02T00:00:00.000Z',
    });
    expect(changesRequest(p, { configId: 'id1', includeDeleted: true, pageSize: 50 })).toMatchObject({
      id: 'id1',
      recursive: 'all',
      depth: 2,
    });
    expect(changesRequest(parse(''), { configId: 'id1', includeDeleted: true, pageSize: 50 })).not.toHaveProperty('recursive');
  });

  it('finds malformed tags', () => {
    expect(badTags('env=prod, team ,=x')).toEqual(['team', '=x']);
  });
});
