import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { dbInsert, dbSelect, dbSoftDelete, dbUpdate } from '../../api/db';
import type { NamedRef, PersonRef, PersonRow, Source, TeamRef } from '../../api/types';
import { keys } from '../../app/queryKeys';
import type { AccessScopePayload, ResourceType, ScopeEntry } from '../../lib/accessScope';

/** An access scope as the list reads it, with its subject and author. */
export interface AccessScopeRow {
  id: string;
  name: string;
  namespace: string;
  description: string | null;
  person_id: string | null;
  team_id: string | null;
  resources: ResourceType[];
  scopes: ScopeEntry[];
  source: Source;
  created_at: string;
  updated_at: string;
  person: PersonRef | null;
  team: TeamRef | null;
  created_by: PersonRef | null;
}

const LIST_SELECT = '*,person:person_id(id,name,email),team:team_id(id,name),created_by(id,name,email)';

/** The Access Scopes screen: the list, what the form picks from, and writes. */
export function useAccessScopesData() {
  const queryClient = useQueryClient();
  const list = useQuery({
    queryKey: keys.accessScopes,
    queryFn: ({ signal }) =>
      dbSelect<AccessScopeRow>('access_scopes', { select: LIST_SELECT, deleted_at: 'is.null', order: 'created_at.desc' }, signal),
  });
  const invalidate = () => queryClient.invalidateQueries({ queryKey: keys.accessScopes });
  const create = useMutation({
    mutationFn: (payload: AccessScopePayload) => dbInsert<AccessScopeRow>('access_scopes', payload),
    onSuccess: invalidate,
  });
  const update = useMutation({
    mutationFn: ({ id, payload }: { id: string; payload: AccessScopePayload }) =>
      dbUpdate<AccessScopeRow>('access_scopes', { id: `eq.${id}` }, payload),
    onSuccess: invalidate,
  });
  const remove = useMutation({
    mutationFn: (id: string) => dbSoftDelete('access_scopes', id),
    onSuccess: invalidate,
  });
  return { list, create, update, remove };
}

/** People with the guest role, teams and agents, for the access scope form. */
export function useAccessScopeChoices() {
  const guests = useQuery({
    queryKey: [...keys.people, 'guests'],
    queryFn: ({ signal }) =>
      dbSelect<PersonRow>(
        'people',
        { select: 'id,name,email,roles', roles: 'cs.{guest}', deleted_at: 'is.null', order: 'name.asc' },
        signal,
      ),
  });
  const teams = useQuery({
    queryKey: [...keys.teams, 'names'],
    queryFn: ({ signal }) => dbSelect<TeamRef>('teams', { select: 'id,name', deleted_at: 'is.null', order: 'name.asc' }, signal),
  });
  const agents = useQuery({
    queryKey: [...keys.agents, 'names'],
    queryFn: ({ signal }) => dbSelect<NamedRef>('agents', { select: 'id,name', deleted_at: 'is.null', order: 'name.asc' }, signal),
    staleTime: 300_000,
  });
  return { guests: guests.data ?? [], teams: teams.data ?? [], agents: agents.data ?? [] };
}
