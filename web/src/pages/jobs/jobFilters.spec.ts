import { describe, expect, it } from 'vitest';
import { COLUMNS, EMBEDS, formatStatusFilter, jobFiltersFromParams, jobHistoryQuery, parseStatusFilter } from './jobFilters';

describe('the status filter', () => {
  it('round-trips include and exclude', () => {
    expect(parseStatusFilter('SUCCESS:-1,FAILED:1')).toEqual({ SUCCESS: -1, FAILED: 1 });
    expect(formatStatusFilter({ SUCCESS: -1, FAILED: 1 })).toBe('SUCCESS:-1,FAILED:1');
    expect(parseStatusFilter('BOGUS:1,RUNNING:2,WARNING:1,')).toEqual({ WARNING: 1 });
    expect(formatStatusFilter({})).toBe('');
  });
});

describe('job filters from the URL', () => {
  it('defaults to SUCCESS excluded, created_at descending and 150 a page', () => {
    expect(jobFiltersFromParams(new URLSearchParams())).toEqual({
      name: undefined,
      resourceType: undefined,
      status: { SUCCESS: -1 },
      durationMs: undefined,
      sort: { by: 'created_at', desc: true },
      pageIndex: 0,
      pageSize: 150,
    });
  });

  it('reads every filter, an empty status meaning none', () => {
    const params = new URLSearchParams(
      'name=Sync&resource_type=canary&status=&duration=1000&sortBy=duration_millis&sortDesc=false&pageIndex=2&pageSize=25',
    );
    expect(jobFiltersFromParams(params)).toEqual({
      name: 'Sync',
      resourceType: 'canary',
      status: {},
      durationMs: 1000,
      sort: { by: 'duration_millis', desc: false },
      pageIndex: 2,
      pageSize: 25,
    });
  });

  it('ignores invalid values', () => {
    const filters = jobFiltersFromParams(new URLSearchParams('sortBy=details&pageIndex=-1&pageSize=0&duration=soon'));
    expect(filters.sort).toEqual({ by: 'created_at', desc: true });
    expect(filters.pageIndex).toBe(0);
    expect(filters.pageSize).toBe(150);
    expect(filters.durationMs).toBeUndefined();
  });
});

describe('the data API query', () => {
  const range = { from: new Date('2024-03-11T15:30:00.000Z'), to: new Date('2024-03-13T15:30:00.000Z') };

  it('has the defaults: SUCCESS excluded, the range, newest first, the first page', () => {
    expect(jobHistoryQuery(jobFiltersFromParams(new URLSearchParams()), range)).toEqual({
      columns: COLUMNS,
      embed: EMBEDS,
      status: 'not.in.(SUCCESS)',
      and: '(created_at.gte.2024-03-11T15:30:00.000Z,created_at.lte.2024-03-13T15:30:00.000Z)',
      order: 'created_at.desc,id',
      limit: 150,
      offset: 0,
    });
  });

  it('maps every filter', () => {
    const filters = jobFiltersFromParams(
      new URLSearchParams(
        'name=Sync&resource_type=topology&status=FAILED:1,WARNING:1,SUCCESS:-1&duration=500&sortBy=name&sortDesc=false&pageIndex=3&pageSize=10',
      ),
    );
    expect(jobHistoryQuery(filters)).toEqual({
      columns: COLUMNS,
      embed: EMBEDS,
      name: 'eq.Sync',
      resource_type: 'eq.topology',
      status: 'in.(WARNING,FAILED)',
      duration_millis: 'gte.500',
      order: 'name.asc,id',
      limit: 10,
      offset: 30,
    });
  });

  it('filters one resource', () => {
    const query = jobHistoryQuery({ ...jobFiltersFromParams(new URLSearchParams('status=')), resourceId: 'abc' });
    expect(query.resource_id).toBe('eq.abc');
    expect(query.status).toBeUndefined();
    expect(query.and).toBeUndefined();
  });
});
