import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { dbSelect, type Selected } from '../../../api/db';
import { useSession } from '../../../app/session';
import { approveRun, cancelRun } from '../playbookApi';
import { LIVE_MS, isFinished } from './runStatus';

const EMBED = {
  playbook: ['id', 'title', 'icon'],
  created_by: ['id', 'name', 'email'],
  config: ['id', 'name'],
  component: ['id', 'name'],
  check: ['id', 'name'],
  parent: ['id', 'status'],
  children: ['id', 'status', 'start_time', 'end_time', 'created_at'],
  playbook_run_actions: ['id', 'name', 'status', 'retry_count', 'scheduled_time', 'start_time', 'end_time', 'result', 'error'],
} as const;

export type RunDetail = Selected<'playbook_runs', keyof Selected<'playbook_runs'> & string, typeof EMBED>;
export type RunAction = RunDetail['playbook_run_actions'][number];

const runKey = (id: string) => ['db', 'playbook_runs', 'item', id] as const;

/** A run with its actions (in the order they ran) and child runs, asked
 * again every LIVE_MS until it finishes; the teams of the user (who may
 * approve through one); approve and cancel. */
export function useRunData(id: string) {
  const client = useQueryClient();
  const { user } = useSession();
  const run = useQuery({
    queryKey: runKey(id),
    queryFn: async ({ signal }) => {
      const [row] = await dbSelect('playbook_runs', { id: `eq.${id}`, embed: EMBED, limit: 1 }, signal);
      if (!row) return null;
      const at = (a: RunAction) => a.start_time ?? a.scheduled_time;
      row.playbook_run_actions.sort((a, b) => at(a).localeCompare(at(b)));
      return row;
    },
    refetchInterval: (query) => (query.state.data && !isFinished(query.state.data.status) ? LIVE_MS : false),
  });
  const teams = useQuery({
    queryKey: ['db', 'team_members', 'mine', user.id],
    queryFn: ({ signal }) =>
      dbSelect('team_members', { person_id: `eq.${user.id}`, embed: { team: ['name'] } }, signal).then((rows) =>
        rows.flatMap((r) => (r.team ? [r.team.name] : [])),
      ),
  });
  const refresh = () => client.invalidateQueries({ queryKey: ['db', 'playbook_runs'] });
  const approve = useMutation({ mutationFn: () => approveRun(id), onSettled: refresh });
  const cancel = useMutation({ mutationFn: () => cancelRun(id), onSettled: refresh });
  return { run, teams, approve, cancel };
}
