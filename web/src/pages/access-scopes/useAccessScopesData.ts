import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { dbInsert, dbSelect, dbSoftDelete, dbUpdate, type Column, type Selected } from '../../api/db';
import type { Json } from '../../api/relations.gen';
import { keys } from '../../app/queryKeys';
import type { AccessScopePayload, ResourceType, ScopeEntry } from '../../lib/accessScope';

const LIST_EMBEDS = { person: ['id', 'name', 'email'], team: ['id', 'name'], created_by: ['id', 'name', 'email'] } as const;

/** An access scope as the list reads it, with its subject and author; its
 * resources and scopes in the shapes the data API validates them to. */
export type AccessScopeRow = Omit<Selected<'access_scopes', Column<'access_scopes'>, typeof LIST_EMBEDS>, 'resources' | 'scopes'> & {
  resources: ResourceType[];
  scopes: ScopeEntry[];
};

/** Optional keys left out of a scope entry are left out of its JSON. */
const body = (payload: AccessScopePayload) => ({ ...payload, scopes: payload.scopes as Json });

/** The Access Scopes screen: the list, what the form picks from, and writes. */
export function useAccessScopesData() {
  const queryClient = useQueryClient();
  const list = useQuery({
    queryKey: keys.accessScopes,
    queryFn: ({ signal }) =>
      dbSelect('access_scopes', { embed: LIST_EMBEDS, deleted_at: 'is.null', order: 'created_at.desc' }, signal) as Promise<
        AccessScopeRow[]
      >,
  });
  const invalidate = () => queryClient.invalidateQueries({ queryKey: keys.accessScopes });
  const create = useMutation({
    mutationFn: (payload: AccessScopePayload) => dbInsert('access_scopes', body(payload)),
    onSuccess: invalidate,
  });
  const update = useMutation({
    mutationFn: ({ id, payload }: { id: string; payload: AccessScopePayload }) =>
      dbUpdate('access_scopes', { id: `eq.${id}` }, body(payload)),
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
      dbSelect(
        'people',
        { columns: ['id', 'name', 'email', 'roles'], roles: 'cs.{guest}', deleted_at: 'is.null', order: 'name.asc' },
        signal,
      ),
  });
  const teams = useQuery({
    queryKey: [...keys.teams, 'names'],
    queryFn: ({ signal }) => dbSelect('teams', { columns: ['id', 'name'], deleted_at: 'is.null', order: 'name.asc' }, signal),
  });
  const agents = useQuery({
    queryKey: [...keys.agents, 'names'],
    queryFn: ({ signal }) => dbSelect('agents', { columns: ['id', 'name'], deleted_at: 'is.null', order: 'name.asc' }, signal),
    staleTime: 300_000,
  });
  return { guests: guests.data ?? [], teams: teams.data ?? [], agents: agents.data ?? [] };
}
