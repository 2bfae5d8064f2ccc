import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { dbDelete, dbInsert, dbSelect, dbSoftDelete, dbUpdate, type Column, type Selected } from '../../api/db';
import type { Json } from '../../api/relations.gen';
import { keys } from '../../app/queryKeys';
import type { JsonObject } from '../../lib/yamlText';

const AUTHOR = { created_by: ['id', 'name', 'email'] } as const;

/** A team as its page reads it, with its author. */
export type TeamRow = Selected<'teams', Column<'teams'>, typeof AUTHOR>;

/** One team: its row, members and the people who could join, and writes. */
export function useTeamData(id: string) {
  const queryClient = useQueryClient();
  const team = useQuery({
    queryKey: [...keys.teams, id],
    queryFn: async ({ signal }) => (await dbSelect('teams', { embed: AUTHOR, id: `eq.${id}` }, signal))[0] ?? null,
  });
  const members = useQuery({
    queryKey: keys.teamMembers(id),
    queryFn: ({ signal }) =>
      dbSelect('team_members', { columns: [], embed: { person: ['id', 'name', 'email', 'avatar'] }, team_id: `eq.${id}` }, signal),
  });
  const people = useQuery({
    queryKey: [...keys.people, 'all'],
    queryFn: ({ signal }) => dbSelect('people', { columns: ['id', 'name', 'email'], deleted_at: 'is.null', order: 'name.asc' }, signal),
  });
  const invalidateMembers = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: keys.teamMembers(id) }),
      queryClient.invalidateQueries({ queryKey: keys.teams, exact: true }),
    ]);
  const invalidateTeams = () => queryClient.invalidateQueries({ queryKey: keys.teams });

  const save = useMutation({
    mutationFn: ({ icon, spec }: { icon: string; spec: JsonObject }) => dbUpdate('teams', { id: `eq.${id}` }, { icon, spec: spec as Json }),
    onSuccess: invalidateTeams,
  });
  const remove = useMutation({ mutationFn: () => dbSoftDelete('teams', id), onSuccess: invalidateTeams });
  const addMembers = useMutation({
    mutationFn: (personIds: string[]) =>
      dbInsert(
        'team_members',
        personIds.map((person_id) => ({ team_id: id, person_id })),
      ),
    onSuccess: invalidateMembers,
  });
  const removeMember = useMutation({
    mutationFn: (personId: string) => dbDelete('team_members', { team_id: `eq.${id}`, person_id: `eq.${personId}` }),
    onSuccess: invalidateMembers,
  });
  return { team, members, people, save, remove, addMembers, removeMember };
}
