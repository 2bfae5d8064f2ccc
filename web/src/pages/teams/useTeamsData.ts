import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { dbInsert, dbSelect, type Column, type Selected } from '../../api/db';
import { keys } from '../../app/queryKeys';

const LIST_EMBEDS = { created_by: ['id', 'name', 'email'], team_members: ['person_id'] } as const;

export type TeamListRow = Selected<'teams', Column<'teams'>, typeof LIST_EMBEDS>;

/** The Teams list and creating a team. */
export function useTeamsData() {
  const queryClient = useQueryClient();
  const list = useQuery({
    queryKey: keys.teams,
    queryFn: ({ signal }) => dbSelect('teams', { embed: LIST_EMBEDS, deleted_at: 'is.null', order: 'name.asc' }, signal),
  });
  const create = useMutation({
    mutationFn: (team: { name: string; icon: string }) => dbInsert('teams', { ...team, spec: {} }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.teams }),
  });
  return { list, create };
}
