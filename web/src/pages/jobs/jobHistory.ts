import type { Selected } from '../../api/db';
import type { COLUMNS, EMBEDS } from './jobFilters';

/** A row of job_histories (decision 13.8) with its details' known keys, and
 * the name of the resource it ran for looked up separately. */
export type JobHistoryRow = Omit<Selected<'job_histories', (typeof COLUMNS)[number], typeof EMBEDS>, 'details'> & {
  details: JobDetails | null;
  resource_name?: string;
};

export interface JobDetails {
  errors?: unknown;
  scrape_summary?: unknown;
  /** A scrape's errors counted by kind (spec, source, not_run, timeout). */
  errors_by_type?: unknown;
  summary?: unknown;
}

/** The resource tables job rows point at, by resource_type. */
export const RESOURCE_TABLES: Record<string, 'canaries' | 'topologies' | 'config_scrapers'> = {
  canary: 'canaries',
  topology: 'topologies',
  config_scraper: 'config_scrapers',
};

/** Where a job's resource is shown: canaries and scrapers have a page. */
export function resourcePath(row: Pick<JobHistoryRow, 'resource_type' | 'resource_id'>): string | undefined {
  if (!row.resource_id) return undefined;
  if (row.resource_type === 'canary') return `/settings/canaries/${row.resource_id}`;
  if (row.resource_type === 'config_scraper') return `/catalog/scrapers/${row.resource_id}`;
  return undefined;
}

const UNITS: [ms: number, unit: string][] = [
  [86_400_000, 'd'],
  [3_600_000, 'h'],
  [60_000, 'm'],
  [1000, 's'],
];

/** 850ms, 1.5s, 2m 5s, 3h 10m, 1d 2h. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms == null || ms < 0) return '';
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(1))}s`;
  const parts: string[] = [];
  let rest = ms;
  for (const [size, unit] of UNITS) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0 || parts.length > 0) parts.push(`${n}${unit}`);
    if (parts.length === 2) break;
  }
  return parts.filter((p) => !p.startsWith('0')).join(' ');
}

/** Rows for a table: one column or several, every cell text. */
export interface TextTable {
  columns: string[];
  rows: string[][];
}

export type JobErrors = { kind: 'text'; text: string } | { kind: 'table'; table: TextTable };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string {
  if (value == null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** An entry's message: itself, or its nested `error` (or `message`). */
function message(value: unknown): string {
  if (isRecord(value)) return text(value.error ?? value.message ?? value);
  return text(value);
}

/** Errors as plain text, a list of messages, or a map keyed by item with a
 * nested error; undefined when there are none. List entries naming an item
 * (e.g. {check, error}) keep it. */
export function jobErrors(errors: unknown): JobErrors | undefined {
  if (typeof errors === 'string') return errors.trim() ? { kind: 'text', text: errors } : undefined;
  if (Array.isArray(errors)) {
    if (errors.length === 0) return undefined;
    const items = errors.map((e) => (isRecord(e) ? text(Object.entries(e).find(([k]) => k !== 'error' && k !== 'message')?.[1]) : ''));
    const messages = errors.map(message);
    return items.some(Boolean)
      ? { kind: 'table', table: { columns: ['Item', 'Error'], rows: messages.map((m, i) => [items[i] ?? '', m]) } }
      : { kind: 'table', table: { columns: ['Message'], rows: messages.map((m) => [m]) } };
  }
  if (isRecord(errors)) {
    const entries = Object.entries(errors);
    if (entries.length === 0) return undefined;
    return { kind: 'table', table: { columns: ['Item', 'Error'], rows: entries.map(([item, e]) => [item, message(e)]) } };
  }
  return undefined;
}

/** The counts of a scrape summary per config type, in the order they read
 * (the database returns an object's keys shortest first). */
export const SCRAPE_COUNTS = ['added', 'updated', 'unchanged', 'deleted', 'changes'] as const;

/** A summary as a table: one row per key; a map of objects gets a column per
 * field (e.g. scrape counts per config type), the fields named in `order`
 * first. Undefined when empty. */
export function summaryTable(summary: unknown, order: readonly string[] = []): TextTable | undefined {
  if (!isRecord(summary)) return summary == null || summary === '' ? undefined : { columns: ['Value'], rows: [[text(summary)]] };
  const entries = Object.entries(summary);
  if (entries.length === 0) return undefined;
  if (entries.every(([, v]) => isRecord(v))) {
    const present = new Set(entries.flatMap(([, v]) => Object.keys(v as object)));
    const fields = [...order.filter((f) => present.has(f)), ...[...present].filter((f) => !order.includes(f))];
    return {
      columns: ['Name', ...fields],
      rows: entries.map(([k, v]) => [k, ...fields.map((f) => text((v as Record<string, unknown>)[f]))]),
    };
  }
  return { columns: ['Name', 'Value'], rows: entries.map(([k, v]) => [k, text(v)]) };
}

export type DetailsTab =
  | { key: 'errors'; title: 'Errors'; errors: JobErrors; byType?: TextTable }
  | { key: 'scrape_summary'; title: 'Scrape Summary'; table: TextTable }
  | { key: 'summary'; title: 'Reconcile Summary'; table: TextTable };

/** The details tabs with content, in order; none means no details modal. */
export function detailsTabs(details: JobDetails | null | undefined): DetailsTab[] {
  if (!isRecord(details)) return [];
  const tabs: DetailsTab[] = [];
  const errors = jobErrors(details.errors);
  if (errors) {
    const counts = summaryTable(details.errors_by_type);
    const byType = counts && { columns: ['Error type', 'Count'], rows: counts.rows };
    tabs.push({ key: 'errors', title: 'Errors', errors, ...(byType && { byType }) });
  }
  const scrape = summaryTable(details.scrape_summary, SCRAPE_COUNTS);
  if (scrape) tabs.push({ key: 'scrape_summary', title: 'Scrape Summary', table: scrape });
  const summary = summaryTable(details.summary);
  if (summary) tabs.push({ key: 'summary', title: 'Reconcile Summary', table: summary });
  return tabs;
}
