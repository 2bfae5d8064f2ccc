import { useQuery } from '@tanstack/react-query';
import { fetchRunnable, type RunTarget } from '../playbookApi';

/** The playbooks that can run on a config item, component or check. */
export function useRunnablePlaybooks(target: RunTarget, enabled = true) {
  return useQuery({
    queryKey: ['playbook', 'runnable', target],
    queryFn: ({ signal }) => fetchRunnable(target, signal),
    enabled,
  });
}
