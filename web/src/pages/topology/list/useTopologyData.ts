import { keepPreviousData, useQuery, type QueryClient } from '@tanstack/react-query';
import { usePreference } from '../../../app/preferences';
import { durationMs } from '../../../lib/healthFormat';
import { fetchTopology } from '../shared/topologyApi';
import type { TopologyQuery } from '../shared/types';
import { parseTopologyParams, topologyQuery } from './topologyParams';

function rootsQuery(query: TopologyQuery) {
  return {
    queryKey: ['canary', 'topology', 'roots', query],
    queryFn: ({ signal }: { signal: AbortSignal }) => fetchTopology(query, signal),
  };
}

/** Starts the dashboard's call of a page load (`search` its query string)
 * before the shell has checked the session and the flags. */
export function prefetchRoots(client: QueryClient, search: string): Promise<void> {
  return client.prefetchQuery(rootsQuery(topologyQuery(parseTopologyParams(new URLSearchParams(search)))));
}

/** The root components the filters pick with the facets for the filters,
 * refreshed at the preferred rate; the last answer stays while the next loads. */
export function useTopologyData(query: TopologyQuery) {
  const [refreshRate] = usePreference('refreshRate');
  return useQuery({
    ...rootsQuery(query),
    placeholderData: keepPreviousData,
    refetchInterval: durationMs(refreshRate) || false,
  });
}
