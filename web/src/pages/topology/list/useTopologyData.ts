import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { usePreference } from '../../../app/preferences';
import { durationMs } from '../../../lib/healthFormat';
import { fetchTopology } from '../shared/topologyApi';
import type { TopologyQuery } from '../shared/types';

/** The root components the filters pick with the facets for the filters,
 * refreshed at the preferred rate; the last answer stays while the next loads. */
export function useTopologyData(query: TopologyQuery) {
  const [refreshRate] = usePreference('refreshRate');
  return useQuery({
    queryKey: ['canary', 'topology', 'roots', query],
    queryFn: ({ signal }) => fetchTopology(query, signal),
    placeholderData: keepPreviousData,
    refetchInterval: durationMs(refreshRate) || false,
  });
}
