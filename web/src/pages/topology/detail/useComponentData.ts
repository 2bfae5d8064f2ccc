import { keepPreviousData, useQuery, type QueryClient } from '@tanstack/react-query';
import { dbSelect } from '../../../api/db';
import { ApiError } from '../../../api/errors';
import { usePreference } from '../../../app/preferences';
import { durationMs } from '../../../lib/healthFormat';
import { parseTopologyParams, topologyQuery, type TopologyParams } from '../list/topologyParams';
import { fetchTopology } from '../shared/topologyApi';
import type { TopologyQuery, TopologyResponse } from '../shared/types';
import { ancestorIds } from './breadcrumbs';

/** Most rows a side panel section lists. */
export const MAX_PANEL_ROWS = 500;

const componentKey = (id: string) => ['topology', 'component', id] as const;

/** A malformed id is no component. */
function missing(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 400 || error.status === 404);
}

/** The component (null when there is none for the caller) with its
 * children the filters pick, and the facets of all its children. */
async function fetchComponent(query: TopologyQuery, signal: AbortSignal): Promise<TopologyResponse | null> {
  try {
    const answer = await fetchTopology(query, signal);
    return answer.components.length > 0 ? answer : null;
  } catch (error) {
    if (missing(error)) return null;
    throw error;
  }
}

/** The component with the children `params` pick, as the page and the prefetch ask for it. */
function treeQuery(id: string, params: TopologyParams) {
  const query: TopologyQuery = { ...topologyQuery(params), id, depth: 1 };
  return {
    queryKey: [...componentKey(id), 'tree', query],
    queryFn: ({ signal }: { signal: AbortSignal }) => fetchComponent(query, signal),
  };
}

/** Starts the component's call of a page load (`search` its query string)
 * before the shell has checked the session and the flags, which takes
 * about as long as the call: the page finds it under way or answered. */
export function prefetchComponent(client: QueryClient, id: string, search: string): Promise<void> {
  return client.prefetchQuery(treeQuery(id, parseTopologyParams(new URLSearchParams(search))));
}

/** The component page's data, all asked for at once: the component with the
 * children the filters pick (null when there is no such component for the
 * caller; refreshed at the preferred rate, the last answer kept while the
 * next loads), its ancestors' names for the breadcrumbs, and the side
 * panel's linked checks, configs, insights and teams. */
export function useComponentData(id: string, params: TopologyParams) {
  const [refreshRate] = usePreference('refreshRate');
  const tree = useQuery({
    ...treeQuery(id, params),
    placeholderData: keepPreviousData,
    refetchInterval: durationMs(refreshRate) || false,
  });
  const component = tree.data?.components[0];
  const ids = ancestorIds(component?.path, id);
  const ancestors = useQuery({
    queryKey: [...componentKey(id), 'ancestors', ids],
    queryFn: ({ signal }) => dbSelect('component_names', { id: `in.(${ids.join(',')})`, columns: ['id', 'name', 'icon'] }, signal),
    enabled: ids.length > 0,
  });

  const checks = useQuery({
    queryKey: [...componentKey(id), 'checks'],
    queryFn: ({ signal }) =>
      dbSelect(
        'checks_by_component',
        { component_id: `eq.${id}`, columns: ['id', 'name', 'type', 'icon', 'status'], order: 'name.asc', limit: MAX_PANEL_ROWS },
        signal,
      ),
  });

  const configs = useQuery({
    queryKey: [...componentKey(id), 'configs'],
    queryFn: async ({ signal }) => {
      const links = await dbSelect(
        'config_component_relationships',
        {
          component_id: `eq.${id}`,
          deleted_at: 'is.null',
          columns: [],
          embed: { config: ['id', 'name', 'type', 'health', 'deleted_at'] },
          limit: MAX_PANEL_ROWS,
        },
        signal,
      );
      return links
        .flatMap((l) => (l.config && !l.config.deleted_at ? [l.config] : []))
        .sort((a, b) => (a.name ?? '').localeCompare(b.name ?? ''));
    },
  });

  const insights = useQuery({
    queryKey: [...componentKey(id), 'insights'],
    queryFn: ({ signal }) =>
      dbSelect(
        'analysis_by_component',
        {
          component_id: `eq.${id}`,
          status: 'eq.open',
          columns: ['id', 'config_id', 'config_name', 'config_type', 'analyzer', 'analysis_type', 'severity', 'summary', 'message'],
          order: 'last_observed.desc.nullslast',
          limit: MAX_PANEL_ROWS,
        },
        signal,
      ),
  });

  const teams = useQuery({
    queryKey: [...componentKey(id), 'teams'],
    queryFn: async ({ signal }) => {
      const links = await dbSelect(
        'team_components',
        { component_id: `eq.${id}`, columns: ['role'], embed: { team: ['id', 'name'] }, limit: MAX_PANEL_ROWS },
        signal,
      );
      return links.flatMap((l) => (l.team ? [{ ...l.team, role: l.role }] : [])).sort((a, b) => a.name.localeCompare(b.name));
    },
  });

  return { tree, component, ancestors, ancestorIds: ids, checks, configs, insights, teams };
}

export type ComponentData = ReturnType<typeof useComponentData>;
