import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../../api/client';
import { dbCount, dbSelect, type Selected } from '../../../api/db';
import { keys } from '../../../app/queryKeys';
import { COLUMNS, EMBEDS, configsQuery, summaryBody, type Agent, type CatalogFilter, type Page } from './catalogFilter';

export type ConfigRow = Selected<'configs', (typeof COLUMNS)[number], typeof EMBEDS>;

/** Lists of choices are kept 5 minutes (spec part 2, constants). */
const LIST_STALE_MS = 300_000;
/** Most label or tag choices offered; the search box reaches the rest. */
const MAX_CHOICES = 1000;
const NO_AGENTS: Agent[] = [];

/** One page of items with the total, and the counts by type (the summary).
 * The changes and insights counts of the page's items come after the page. */
export function useCatalogData(filter: CatalogFilter, page: Page) {
  const list = useQuery({
    queryKey: ['db', 'configs', 'list', filter, page],
    queryFn: ({ signal }) => dbCount('configs', configsQuery(filter, page), signal),
    placeholderData: keepPreviousData,
  });
  const body = summaryBody(filter);
  const summary = useQuery({
    queryKey: ['catalog', 'summary', body],
    queryFn: ({ signal }) => unwrap(api.POST('/api/catalog/summary', { body, signal })),
    placeholderData: keepPreviousData,
  });
  const ids = (list.data?.rows ?? []).map((r) => r.id);
  const counts = useQuery({
    queryKey: ['db', 'config_detail', 'counts', ids],
    queryFn: async ({ signal }) => {
      const rows = await dbSelect('config_detail', { columns: ['id', 'summary'], id: `in.(${ids.join(',')})` }, signal);
      return new Map(rows.map((r) => [r.id, r.summary as { changes?: number; analysis?: number } | null]));
    },
    enabled: ids.length > 0,
    placeholderData: keepPreviousData,
  });
  return { list, summary, counts: counts.data };
}

/** The agents by name, for the agent filter and `agent=` in the search box. */
export function useAgents() {
  const agents = useQuery({
    queryKey: [...keys.agents, 'names'],
    queryFn: ({ signal }) => dbSelect('agents', { columns: ['id', 'name'], deleted_at: 'is.null', order: 'name.asc' }, signal),
    staleTime: LIST_STALE_MS,
  });
  return agents.data ?? NO_AGENTS;
}

/** The `key=value` labels or tags of the items the caller sees, fetched once wanted. */
export function useKeyValues(relation: 'config_labels' | 'config_tags', enabled: boolean) {
  return useQuery({
    queryKey: ['db', relation],
    queryFn: ({ signal }) => dbSelect(relation, { columns: ['id'], order: 'id.asc', limit: MAX_CHOICES }, signal),
    select: (rows) => rows.map((r) => r.id),
    staleTime: LIST_STALE_MS,
    enabled,
  });
}
