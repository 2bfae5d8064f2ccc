import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { dbDelete, dbInsert, dbSelect, dbSoftDelete, dbUpdate } from '../../api/db';
import type { PersonRef, TeamRow } from '../../api/types';
import { keys } from '../../app/queryKeys';

/** One team: its row, members and the people who could join, and writes. */
export function useTeamData(id: string) {
  const queryClient = useQueryClient();
  const team = useQuery({
    queryKey: [...keys.teams, id],
    queryFn: async ({ signal }) =>
      (await dbSelect<TeamRow>('teams', { select: '*,created_by(id,name,email)', id: `eq.${id}` }, signal))[0] ?? null,
  });
  const members = useQuery({
    queryKey: keys.teamMembers(id),
    queryFn: ({ signal }) =>
      dbSelect<{ person: PersonRef }>('team_members', { select: 'person:person_id(id,name,email,avatar)', team_id: `eq.${id}` }, signal),
  });
  const people = useQuery({
    queryKey: [...keys.people, 'all'],
    queryFn: ({ signal }) => dbSelect<PersonRef>('people', { select: 'id,name,email', deleted_at: 'is.null', order: 'name.asc' }, signal),
  });
  const invalidateMembers = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: keys.teamMembers(id) }),
      queryClient.invalidateQueries({ queryKey: keys.teams, exact: true }),
    ]);
  const invalidateTeams = () => queryClient.invalidateQueries({ queryKey: keys.teams });

  const save = useMutation({
    mutationFn: (changes: { icon: string; spec: unknown }) => dbUpdate<TeamRow>('teams', { id: `eq.${id}` }, changes),
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
