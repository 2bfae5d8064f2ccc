import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { dbCount, dbSelect, type Selected } from '../../../api/db';
import { usePreference } from '../../../app/preferences';
import { nameFilter, type ScrapersParams } from '../../catalog/scrapers/scraperList';

const COLUMNS = ['id', 'name', 'namespace', 'schedule', 'source', 'created_at', 'updated_at'] as const;
const RUN_COLUMNS = ['id', 'job_status', 'job_time_start'] as const;

export type TopologyRow = Selected<'topologies', (typeof COLUMNS)[number]>;
/** A topology's last run (its newest job history row, through the integrations list's view). */
export type LastRun = Selected<'integrations_with_status', (typeof RUN_COLUMNS)[number]>;

/** Under the prefix every write to topologies invalidates (useInvalidateIntegrations). */
const LIST_KEY = ['db', 'topologies', 'settings'] as const;

/** The last run of each topology of a page, by id; empty for a caller who may
 * not read the integrations list (the column stays blank). */
async function lastRuns(ids: string[], signal: AbortSignal): Promise<Map<string, LastRun>> {
  if (ids.length === 0) return new Map();
  const rows = await dbSelect(
    'integrations_with_status',
    { columns: RUN_COLUMNS, integration_type: 'eq.topology', id: `in.(${ids.join(',')})` },
    signal,
  ).catch(() => []);
  return new Map(rows.flatMap((r) => (r.id ? [[r.id, r] as const] : [])));
}

/** One page of the live topologies, by name, with each one's last run. */
export function useTopologiesSettingsData(params: ScrapersParams) {
  const [pageSize] = usePreference('pageSize');
  const list = useQuery({
    queryKey: [...LIST_KEY, params, pageSize],
    queryFn: async ({ signal }) => {
      const { rows, total } = await dbCount(
        'topologies',
        {
          columns: COLUMNS,
          deleted_at: 'is.null',
          name: nameFilter(params.search),
          order: 'name,namespace,id',
          limit: pageSize,
          offset: (params.page - 1) * pageSize,
        },
        signal,
      );
      const runs = await lastRuns(
        rows.map((r) => r.id),
        signal,
      );
      return { rows, total, runs };
    },
    placeholderData: keepPreviousData,
  });
  return { list, pageSize };
}
