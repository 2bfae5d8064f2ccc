import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../../../api/client';

export type RunnablePlaybook = Schemas['RunnablePlaybook'];

/** The playbooks that can run on a config item (their `spec.configs`
 * selectors select it), by title. */
export function useRunnablePlaybooks(configId: string) {
  return useQuery({
    queryKey: ['catalog', 'item', configId, 'playbooks'],
    queryFn: ({ signal }) => unwrap(api.GET('/api/playbook/list', { params: { query: { config_id: configId } }, signal })),
  });
}
