import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { dbInsert, dbSelect, type Column, type Selected } from '../../api/db';
import { keys } from '../../app/queryKeys';
import { AUTHOR, SETTINGS_LIST } from '../../lib/settingsList';

const LIST_EMBEDS = { ...AUTHOR, team_members: ['person_id'] } as const;

export type TeamListRow = Selected<'teams', Column<'teams'>, typeof LIST_EMBEDS>;

/** The Teams list and creating a team. */
export function useTeamsData() {
  const queryClient = useQueryClient();
  const list = useQuery({
    queryKey: keys.teams,
    queryFn: ({ signal }) => dbSelect('teams', { ...SETTINGS_LIST, embed: LIST_EMBEDS }, signal),
  });
  const create = useMutation({
    mutationFn: (team: { name: string; icon: string }) => dbInsert('teams', { ...team, spec: {} }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.teams }),
  });
  return { list, create };
}
