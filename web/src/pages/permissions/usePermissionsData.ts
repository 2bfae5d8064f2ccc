import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { dbDelete, dbInsert, dbSelect, dbUpdate } from '../../api/db';
import type { NamedRef, PermissionRow, PersonRef } from '../../api/types';
import { keys } from '../../app/queryKeys';
import { useSession } from '../../app/session';
import type { PermissionFields, ResourceKind } from '../../lib/permission';

const EMBEDS = [
  'person:person_id(id,name,email)',
  'team:team_id(id,name)',
  'notification:notification_id(id,name)',
  'playbook:playbook_id(id,name)',
  'canary:canary_id(id,name)',
  'component:component_id(id,name)',
  'config:config_id(id,name)',
  'created_by(id,name,email)',
];

/** The Permissions screen: the list (with related rows), one permission, writes. */
export function usePermissionsData() {
  const { authorizer } = useSession();
  const queryClient = useQueryClient();
  // Connections are readable by admins only; others list without them.
  const select = ['*', ...EMBEDS, ...(authorizer.can('connections', 'read') ? ['connection:connection_id(id,name)'] : [])].join(',');
  const list = useQuery({
    queryKey: keys.permissions,
    queryFn: ({ signal }) => dbSelect<PermissionRow>('permissions', { select, deleted_at: 'is.null', order: 'created_at.desc' }, signal),
  });
  const invalidate = () => queryClient.invalidateQueries({ queryKey: keys.permissions });
  const create = useMutation({
    mutationFn: (row: PermissionFields) => dbInsert<PermissionRow>('permissions', row),
    onSuccess: invalidate,
  });
  const update = useMutation({
    mutationFn: ({ id, row }: { id: string; row: Partial<PermissionFields> }) =>
      dbUpdate<PermissionRow>('permissions', { id: `eq.${id}` }, row),
    onSuccess: invalidate,
  });
  const remove = useMutation({
    mutationFn: (id: string) => dbDelete('permissions', { id: `eq.${id}` }),
    onSuccess: invalidate,
  });
  return { list, create, update, remove };
}

/** The full permission being edited. */
export function usePermission(id: string | undefined) {
  return useQuery({
    // Not under the list's key: a write must not reload (or drop) the row being edited.
    queryKey: ['permission', id],
    queryFn: async ({ signal }) => (await dbSelect<PermissionRow>('permissions', { select: '*', id: `eq.${id}` }, signal))[0] ?? null,
    enabled: Boolean(id),
    gcTime: 0,
  });
}

const LOOKUPS: Record<string, { relation: string; select: string }> = {
  person: { relation: 'people', select: 'id,name,email' },
  team: { relation: 'teams', select: 'id,name' },
  notification: { relation: 'notifications', select: 'id,name' },
  playbook: { relation: 'playbooks', select: 'id,name' },
  connection: { relation: 'connections', select: 'id,name' },
  canary: { relation: 'canaries', select: 'id,name' },
  component: { relation: 'components', select: 'id,name' },
  config: { relation: 'config_items', select: 'id,name' },
};

/** What a subject or resource picker of the given kind lists. */
export function useLookup(kind: string | ResourceKind) {
  const lookup = LOOKUPS[kind];
  return useQuery({
    queryKey: ['db', lookup?.relation, 'lookup'],
    queryFn: ({ signal }) =>
      lookup
        ? dbSelect<NamedRef & Partial<PersonRef>>(
            lookup.relation,
            { select: lookup.select, deleted_at: 'is.null', order: 'name.asc', limit: 500 },
            signal,
          )
        : [],
    enabled: Boolean(lookup),
    staleTime: 60_000,
  });
}
