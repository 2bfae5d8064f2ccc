import { Label, ToolbarItem } from '@patternfly/react-core';
import { Link } from 'react-router';
import { dbCount, dbSelect, type Column, type Query, type Selected } from '../../api/db';
import { PAGE_SIZES, usePreference } from '../../app/preferences';
import { CrdBadge } from '../../components/Labels';
import type { Column as ListColumn } from '../../components/ListTable';
import type { PagedListProps } from '../../components/PagedList';
import { useListSearch } from '../../components/PagedList';
import { SearchBox } from '../../components/SearchBox';
import { formatDateTime } from '../../lib/format';
import { jobStatusColor, type IntegrationType } from '../../lib/integrations';
import { nameFilter, parseScrapersParams, type ScrapersParams } from '../catalog/scrapers/scraperList';

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

interface NamedRow {
  id: string;
  name: string;
  namespace: string;
  source: string;
}

/** The Name column of a named list (its name linking to its page, as the row does, then its
 * namespace) and its Source column (a CRD's as its badge). */
export function namedColumns<T extends NamedRow>(path: (id: string) => string): { name: ListColumn<T>; source: ListColumn<T> } {
  return {
    name: {
      title: 'Name',
      cell: (row) => (
        <>
          <Link to={path(row.id)} onClick={(e) => e.stopPropagation()}>
            {row.name}
          </Link>{' '}
          <Label isCompact>{row.namespace}</Label>
        </>
      ),
    },
    source: { title: 'Source', cell: (row) => (row.source === 'KubernetesCRD' ? <CrdBadge source={row.source} /> : row.source) },
  };
}

/** A named list's page and name search in the URL and its page size preference: the state,
 * the search box and the pager. */
export function useNamedList(searchLabel: string) {
  const [params, update] = useListSearch(parseScrapersParams);
  const [pageSize, setPageSize] = usePreference('pageSize');
  const search = (
    <ToolbarItem>
      <SearchBox label={searchLabel} placeholder="Search by name" value={params.search} onChange={(text) => update({ search: text })} />
    </ToolbarItem>
  );
  const pager: PagedListProps<unknown>['pager'] = {
    page: params.page,
    pageSize,
    pageSizes: PAGE_SIZES,
    onPage: (page) => update({ page }, true),
    onPageSize: (size) => (setPageSize(size), update({})),
  };
  return { params, search, pager };
}
