import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { dbCount, type Selected } from '../../../api/db';
import { usePreference } from '../../../app/preferences';
import { fetchLastRuns } from '../../integrations/lastRun';
import { nameFilter, type ScrapersParams } from '../../catalog/scrapers/scraperList';

const COLUMNS = ['id', 'name', 'namespace', 'schedule', 'source', 'created_at', 'updated_at'] as const;

export type TopologyRow = Selected<'topologies', (typeof COLUMNS)[number]>;
/** Under the prefix every write to topologies invalidates (useInvalidateIntegrations). */
const LIST_KEY = ['db', 'topologies', 'settings'] as const;

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
      const runs = await fetchLastRuns(
        'topology',
        rows.map((r) => r.id),
        signal,
      );
      return { rows, total, runs };
    },
    placeholderData: keepPreviousData,
  });
  return { list, pageSize };
}
