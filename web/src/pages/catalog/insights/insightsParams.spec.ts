import { describe, expect, it } from 'vitest';
import { insightsQuery, parseInsightsParams, withInsightsParams } from './insightsParams';

const parse = (query: string) => parseInsightsParams(new URLSearchParams(query));

describe('insights params', () => {
  it('reads defaults and drops what it does not know', () => {
    expect(parse('sortBy=message&page=-1&pageSize=3')).toEqual({
      analyzers: [],
      types: [],
      severities: [],
      statuses: [],
      sortBy: 'last_observed',
      sortDesc: true,
      page: 1,
      pageSize: undefined,
    });
  });

  it('resets the page on a filter change, keeps it on paging', () => {
    const start = new URLSearchParams('page=3');
    expect(withInsightsParams(start, { statuses: ['open'] }).toString()).toBe('status=open');
    expect(withInsightsParams(start, { page: 4 }).toString()).toBe('page=4');
    expect(withInsightsParams(start, { sortBy: 'analyzer', sortDesc: false }).toString()).toBe('sortBy=analyzer');
  });

  it('queries one page, quoting list values', () => {
    const p = parse('analyzer=Pod%20restarts,a"b&severity=high&sortBy=severity&page=2');
    expect(insightsQuery(p, { includeDeleted: false, pageSize: 50 })).toMatchObject({
      analyzer: 'in.("Pod restarts","a\\"b")',
      severity: 'in.("high")',
      config_deleted_at: 'is.null',
      order: 'severity.asc.nullsfirst,id.asc',
      limit: 50,
      offset: 50,
    });
    const one = insightsQuery(parse(''), { configId: 'c1', includeDeleted: true, pageSize: 25 });
    expect(one).toMatchObject({ config_id: 'eq.c1', order: 'last_observed.desc.nullslast,id.desc' });
    expect(one).not.toHaveProperty('config_deleted_at');
  });
});
