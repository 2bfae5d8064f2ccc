import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { Selected } from '../../../api/db';
import { usePreference } from '../../../app/preferences';
import { fetchNamedPage } from '../../integrations/lastRun';
import type { ScrapersParams } from '../../catalog/scrapers/scraperList';

const COLUMNS = ['id', 'name', 'namespace', 'schedule', 'source', 'created_at', 'updated_at'] as const;

export type TopologyRow = Selected<'topologies', (typeof COLUMNS)[number]>;
/** Under the prefix every write to topologies invalidates (useInvalidateIntegrations). */
const LIST_KEY = ['db', 'topologies', 'settings'] as const;

/** One page of the live topologies, by name, with each one's last run. */
export function useTopologiesSettingsData(params: ScrapersParams) {
  const [pageSize] = usePreference('pageSize');
  const list = useQuery({
    queryKey: [...LIST_KEY, params, pageSize],
    queryFn: ({ signal }) => fetchNamedPage('topologies', COLUMNS, 'topology', params, pageSize, signal),
    placeholderData: keepPreviousData,
  });
  return { list, pageSize };
}
