import { describe, expect, it } from 'vitest';
import { SCRAPE_COUNTS, detailsTabs, formatDuration, jobErrors, resourcePath, summaryTable } from './jobHistory';

it('formats durations', () => {
  expect(formatDuration(null)).toBe('');
  expect(formatDuration(0)).toBe('0ms');
  expect(formatDuration(850)).toBe('850ms');
  expect(formatDuration(1500)).toBe('1.5s');
  expect(formatDuration(12_000)).toBe('12s');
  expect(formatDuration(125_000)).toBe('2m 5s');
  expect(formatDuration(3_605_000)).toBe('1h');
  expect(formatDuration(90_000_000)).toBe('1d 1h');
});

it('links canaries and scrapers to their pages', () => {
  expect(resourcePath({ resource_type: 'canary', resource_id: 'c1' })).toBe('/settings/canaries/c1');
  expect(resourcePath({ resource_type: 'config_scraper', resource_id: 's1' })).toBe('/catalog/scrapers/s1');
  expect(resourcePath({ resource_type: 'topology', resource_id: 't1' })).toBeUndefined();
});

describe('job errors', () => {
  it('may be plain text', () => {
    expect(jobErrors('boom')).toEqual({ kind: 'text', text: 'boom' });
    expect(jobErrors('  ')).toBeUndefined();
  });

  it('may be a list of messages', () => {
    expect(jobErrors(['a', 'b'])).toEqual({ kind: 'table', table: { columns: ['Message'], rows: [['a'], ['b']] } });
    expect(jobErrors([])).toBeUndefined();
  });

  it('may be a list naming items', () => {
    expect(jobErrors([{ check: 'ns/c/http', error: 'timeout' }])).toEqual({
      kind: 'table',
      table: { columns: ['Item', 'Error'], rows: [['ns/c/http', 'timeout']] },
    });
  });

  it('may be a map keyed by item with nested errors', () => {
    expect(jobErrors({ 'aws/ec2': { error: 'denied' }, 'aws/s3': 'throttled' })).toEqual({
      kind: 'table',
      table: {
        columns: ['Item', 'Error'],
        rows: [
          ['aws/ec2', 'denied'],
          ['aws/s3', 'throttled'],
        ],
      },
    });
    expect(jobErrors({})).toBeUndefined();
    expect(jobErrors(null)).toBeUndefined();
  });
});

describe('summaries', () => {
  it('become tables', () => {
    expect(summaryTable({ runs: 3, failed: 1 })).toEqual({
      columns: ['Name', 'Value'],
      rows: [
        ['runs', '3'],
        ['failed', '1'],
      ],
    });
    expect(summaryTable({ Pod: { added: 2 }, Node: { added: 1, updated: 4 } })).toEqual({
      columns: ['Name', 'added', 'updated'],
      rows: [
        ['Pod', '2', ''],
        ['Node', '1', '4'],
      ],
    });
    expect(summaryTable({})).toBeUndefined();
    expect(summaryTable(null)).toBeUndefined();
  });
});

describe('scrape summaries', () => {
  // As the engine writes it, with the keys in the order PostgreSQL's jsonb returns them.
  const details = {
    scrape_summary: {
      'Kubernetes::Deployment': { added: 5, changes: 1, deleted: 0, updated: 1, unchanged: 3 },
      'Kubernetes::Namespace': { added: 3, changes: 0, deleted: 1, updated: 0, unchanged: 0 },
    },
    errors: ['file[0]: config/samples/catalog/broken.yaml: did not parse'],
    errors_by_type: { source: 1 },
  };

  it('read Name, added, updated, unchanged, deleted, changes, one row per config type', () => {
    const tab = detailsTabs(details).find((t) => t.key === 'scrape_summary');
    expect(tab).toEqual({
      key: 'scrape_summary',
      title: 'Scrape Summary',
      table: {
        columns: ['Name', 'added', 'updated', 'unchanged', 'deleted', 'changes'],
        rows: [
          ['Kubernetes::Deployment', '5', '1', '3', '0', '1'],
          ['Kubernetes::Namespace', '3', '0', '0', '1', '0'],
        ],
      },
    });
  });

  it('keep counts they do not know after the known ones', () => {
    expect(summaryTable({ File: { skipped: 2, added: 1 } }, SCRAPE_COUNTS)?.columns).toEqual(['Name', 'added', 'skipped']);
  });

  it('come with their errors first', () => {
    expect(detailsTabs(details).map((t) => t.title)).toEqual(['Errors', 'Scrape Summary']);
    expect(detailsTabs(details)[0]).toEqual({
      key: 'errors',
      title: 'Errors',
      errors: { kind: 'table', table: { columns: ['Message'], rows: [['file[0]: config/samples/catalog/broken.yaml: did not parse']] } },
      byType: { columns: ['Error type', 'Count'], rows: [['source', '1']] },
    });
  });
});

describe("a scrape's errors", () => {
  it('are counted by type above the messages', () => {
    const [errors] = detailsTabs({
      errors: ['file[0]: a.yaml: did not parse', 'aws[0]: not run'],
      errors_by_type: { source: 1, not_run: 1 },
    });
    expect(errors).toMatchObject({
      key: 'errors',
      byType: {
        columns: ['Error type', 'Count'],
        rows: [
          ['source', '1'],
          ['not_run', '1'],
        ],
      },
    });
  });
});

describe('details tabs', () => {
  it('show only those with content', () => {
    expect(detailsTabs(null)).toEqual([]);
    expect(detailsTabs({ errors: [], summary: {} })).toEqual([]);
    expect(detailsTabs({ errors: 'x', scrape_summary: { Pod: { added: 1 } }, summary: { runs: 1 } }).map((t) => t.title)).toEqual([
      'Errors',
      'Scrape Summary',
      'Reconcile Summary',
    ]);
    expect(detailsTabs({ errors: [], summary: { runs: 1 } }).map((t) => t.title)).toEqual(['Reconcile Summary']);
  });
});
