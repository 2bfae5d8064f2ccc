import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../../../api/client';
import { dbSelect } from '../../../../api/db';
import { typeFilter, type Direction } from './relationshipsParams';

/** The item itself (the graph's centre) and its related items up to `depth`
 * hops the given way, as the caller may see them. */
export function useRelationshipsData(configId: string, direction: Direction, depth: number) {
  const item = useQuery({
    queryKey: ['catalog', 'relationships', configId, 'item'],
    queryFn: async ({ signal }) => {
      const rows = await dbSelect('configs', { columns: ['id', 'name', 'type', 'health'], id: `eq.${configId}` }, signal);
      return rows[0] ?? null;
    },
  });
  const related = useQuery({
    queryKey: ['catalog', 'relationships', configId, direction, depth],
    queryFn: ({ signal }) =>
      unwrap(
        api.GET('/api/db/rpc/related_configs_recursive', {
          params: { query: { config_id: configId, max_depth: depth, type_filter: typeFilter(direction) } },
          signal,
        }),
      ),
    placeholderData: keepPreviousData,
  });
  return { item, related };
}
