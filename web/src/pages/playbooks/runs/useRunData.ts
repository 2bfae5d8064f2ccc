import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../../../api/client';
import { dbSelect } from '../../../api/db';
import { approveRun, cancelRun } from '../playbookApi';
import { LIVE_MS, isFinished } from './runStatus';

export type RunDetail = Schemas['RunDetail'];
export type RunAction = RunDetail['actions'][number];

const runKey = (id: string) => ['playbook', 'run', id] as const;
const live = (status: string | undefined) => (status !== undefined && !isFinished(status) ? LIVE_MS : false);

/** A run as its page shows it (actions in the spec's order, approvals, who
 * may approve or cancel it) and its child runs, both asked again every
 * LIVE_MS until the run finishes; approve and cancel. */
export function useRunData(id: string) {
  const client = useQueryClient();
  const run = useQuery({
    queryKey: runKey(id),
    queryFn: ({ signal }) => unwrap(api.GET('/api/playbook/run/{id}', { params: { path: { id } }, signal })),
    refetchInterval: (query) => live(query.state.data?.status),
  });
  const children = useQuery({
    queryKey: [...runKey(id), 'children'],
    queryFn: ({ signal }) =>
      dbSelect(
        'playbook_runs',
        { columns: ['id', 'status', 'start_time', 'end_time'], parent_id: `eq.${id}`, order: 'created_at,id' },
        signal,
      ),
    refetchInterval: () => live(run.data?.status),
  });
  const refresh = () => client.invalidateQueries({ queryKey: runKey(id) });
  const approve = useMutation({ mutationFn: () => approveRun(id), onSettled: refresh });
  const cancel = useMutation({ mutationFn: () => cancelRun(id), onSettled: refresh });
  return { run, children, approve, cancel };
}
