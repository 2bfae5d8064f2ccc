import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { dbInsert, dbSelect } from '../../api/db';
import type { TeamRow } from '../../api/types';
import { keys } from '../../app/queryKeys';

export interface TeamListRow extends TeamRow {
  team_members: { person_id: string }[];
}

/** The Teams list and creating a team. */
export function useTeamsData() {
  const queryClient = useQueryClient();
  const list = useQuery({
    queryKey: keys.teams,
    queryFn: ({ signal }) =>
      dbSelect<TeamListRow>(
        'teams',
        { select: '*,created_by(id,name,email),team_members(person_id)', deleted_at: 'is.null', order: 'name.asc' },
        signal,
      ),
  });
  const create = useMutation({
    mutationFn: (team: { name: string; icon: string }) => dbInsert<TeamRow>('teams', { ...team, spec: {} }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.teams }),
  });
  return { list, create };
}
