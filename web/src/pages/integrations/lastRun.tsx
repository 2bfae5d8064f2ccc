import { Label } from '@patternfly/react-core';
import { dbCount, dbSelect, type Column, type Query, type Selected } from '../../api/db';
import { formatDateTime } from '../../lib/format';
import { jobStatusColor, type IntegrationType } from '../../lib/integrations';
import { nameFilter, type ScrapersParams } from '../catalog/scrapers/scraperList';

const RUN_COLUMNS = ['id', 'job_status', 'job_time_start', 'job_error_count', 'job_details'] as const;

/** An integration's last run, from the integrations list's view (its newest job history row). */
export type LastRun = Selected<'integrations_with_status', (typeof RUN_COLUMNS)[number]>;

/** The last run of each integration of a page, by id; empty for a caller who
 * may not read the integrations list (the column stays blank). */
export async function fetchLastRuns(type: IntegrationType, ids: string[], signal: AbortSignal): Promise<Map<string, LastRun>> {
  if (ids.length === 0) return new Map();
  const rows = await dbSelect(
    'integrations_with_status',
    { columns: RUN_COLUMNS, integration_type: `eq.${type}`, id: `in.(${ids.join(',')})` },
    signal,
  ).catch(() => []);
  return new Map(rows.flatMap((r) => (r.id ? [[r.id, r] as const] : [])));
}

/** The integration lists paged by name (the settings' topologies, the catalog's scrapers). */
type NamedTable = 'topologies' | 'config_scrapers';

/** One page of the live rows of `table` whose name matches the search, by
 * name, with the total and each row's last run (integration `type`). */
export async function fetchNamedPage<T extends NamedTable, C extends Column<T>>(
  table: T,
  columns: readonly C[],
  type: IntegrationType,
  params: ScrapersParams,
  pageSize: number,
  signal: AbortSignal,
) {
  const query = {
    columns,
    deleted_at: 'is.null',
    name: nameFilter(params.search),
    order: 'name,namespace,id',
    limit: pageSize,
    offset: (params.page - 1) * pageSize,
  } as Query<T, C>;
  const { rows, total } = await dbCount(table, query, signal);
  // Both tables have an id; TypeScript cannot see it through the generic columns.
  const ids = rows.map((r) => (r as unknown as { id: string }).id);
  return { rows, total, runs: await fetchLastRuns(type, ids, signal) };
}

/** Status and age of the last run, then `counts` (what it did) and its errors. */
export function LastRunCell({ run, counts = '' }: { run: LastRun | undefined; counts?: string }) {
  if (!run?.job_status) return null;
  const errors = run.job_error_count ?? 0;
  return (
    <>
      <Label isCompact color={jobStatusColor(run.job_status)}>
        {run.job_status}
      </Label>{' '}
      {run.job_time_start && (
        <time dateTime={run.job_time_start} title={formatDateTime(run.job_time_start)}>
          {formatDateTime(run.job_time_start, 'short')} ago
        </time>
      )}
      {(counts || errors > 0) && (
        <div className="pf-v6-u-font-size-sm">
          {[counts, errors > 0 ? `${errors} error${errors === 1 ? '' : 's'}` : ''].filter(Boolean).join(' · ')}
        </div>
      )}
    </>
  );
}
