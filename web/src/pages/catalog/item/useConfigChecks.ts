import { useQuery } from '@tanstack/react-query';
import { dbSelect, type Selected } from '../../../api/db';

/** Most linked checks the tab lists. */
export const MAX_CHECKS = 500;

export type LinkedCheck = Selected<'checks', 'id' | 'name' | 'type' | 'status' | 'description' | 'last_runtime' | 'deleted_at'>;

/** The health checks linked to a config item (`check_config_relationships`),
 * by name; only live checks the caller sees (an embed is null otherwise). */
export function useConfigChecks(configId: string) {
  return useQuery({
    queryKey: ['catalog', 'item', configId, 'checks'],
    queryFn: async ({ signal }) => {
      const links = await dbSelect(
        'check_config_relationships',
        {
          config_id: `eq.${configId}`,
          deleted_at: 'is.null',
          columns: [],
          embed: { check: ['id', 'name', 'type', 'status', 'description', 'last_runtime', 'deleted_at'] },
          limit: MAX_CHECKS,
        },
        signal,
      );
      return links
        .flatMap((l): LinkedCheck[] => (l.check && !l.check.deleted_at ? [l.check] : []))
        .sort((a, b) => a.name.localeCompare(b.name));
    },
  });
}
