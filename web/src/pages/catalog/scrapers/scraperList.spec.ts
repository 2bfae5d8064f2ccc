import { describe, expect, it } from 'vitest';
import { nameFilter, parseScrapersParams, specSchedule, specTypes, summaryCounts } from './scraperList';

describe('specTypes', () => {
  it('lists the non-empty scraper lists in spec order, settings left out, types not run marked', () => {
    const spec = {
      schedule: '@every 15m',
      retention: { changes: [{ name: 'diff', age: '7d' }] },
      full: true,
      kubernetes: [{ clusterName: 'east' }],
      aws: [{ region: ['eu-west-1'] }],
      file: [],
      exec: [{ script: 'echo' }],
      somethingNew: [{}],
    };
    expect(specTypes(spec)).toEqual([
      { key: 'kubernetes', label: 'Kubernetes', isRun: true },
      { key: 'aws', label: 'AWS', isRun: false },
      { key: 'exec', label: 'exec', isRun: true },
      { key: 'somethingNew', label: 'somethingNew', isRun: false },
    ]);
  });

  it('reads nothing from a spec that is not an object', () => {
    expect(specTypes(null)).toEqual([]);
    expect(specTypes([{ kubernetes: [{}] }])).toEqual([]);
  });
});

it('specSchedule reads the schedule, empty for the default', () => {
  expect(specSchedule({ schedule: '@hourly', file: [{}] })).toBe('@hourly');
  expect(specSchedule({ file: [{}] })).toBe('');
  expect(specSchedule(undefined)).toBe('');
});

describe('summaryCounts', () => {
  it('sums the scrape summary over config types, non-zero counts in the Scrape Summary order', () => {
    const details = {
      scrape_summary: {
        'Kubernetes::Pod': { unchanged: 40, added: 2, changes: 1 },
        'Kubernetes::Deployment': { added: 1, updated: 1, deleted: 0 },
      },
      errors: ['file[0]: a.yaml: did not parse'],
    };
    expect(summaryCounts(details)).toBe('3 added · 1 updated · 40 unchanged · 1 changes');
  });

  it('is empty without a summary or with only zeros', () => {
    expect(summaryCounts(null)).toBe('');
    expect(summaryCounts({ errors: ['x'] })).toBe('');
    expect(summaryCounts({ scrape_summary: { A: { added: 0 } } })).toBe('');
  });
});

describe('URL state', () => {
  it('reads page and search, with defaults for missing or bad values', () => {
    expect(parseScrapersParams(new URLSearchParams('page=3&search=east'))).toEqual({ page: 3, search: 'east' });
    expect(parseScrapersParams(new URLSearchParams('page=abc'))).toEqual({ page: 1, search: '' });
    expect(parseScrapersParams(new URLSearchParams('page=0'))).toEqual({ page: 1, search: '' });
  });
});

it('nameFilter is a case-insensitive substring, none for blank text', () => {
  expect(nameFilter(' east ')).toBe('ilike.*east*');
  expect(nameFilter('a*b')).toBe('ilike.*a b*');
  expect(nameFilter('  ')).toBeUndefined();
});
