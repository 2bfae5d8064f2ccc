import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { dbCount, dbDelete, dbInsert, dbSelect, dbUpdate, type Column, type Selected } from '../../api/db';
import { keys } from '../../app/queryKeys';
import { useSession } from '../../app/session';
import type { PermissionFields, ResourceKind } from '../../lib/permission';
import { pageWindow, type PermissionsPage } from './permissionsPage';

const EMBEDS = {
  person: ['id', 'name', 'email'],
  team: ['id', 'name'],
  notification: ['id', 'name'],
  playbook: ['id', 'name'],
  canary: ['id', 'name'],
  component: ['id', 'name'],
  config: ['id', 'name'],
  created_by: ['id', 'name', 'email'],
} as const;
const CONNECTION = { connection: ['id', 'name'] } as const;

/** A permission as the list reads it, with the rows it names; the connection
 * only for those who may read connections. */
export type PermissionRow = Selected<'permissions', Column<'permissions'>, typeof EMBEDS> &
  Partial<Selected<'permissions', never, typeof CONNECTION>>;

/** The Permissions screen: a page of the list (with related rows) and its total. */
export function usePermissionsData(page: PermissionsPage) {
  const { authorizer } = useSession();
  // Connections are readable by admins only; others list without them.
  const embed = authorizer.can('connections', 'read') ? { ...EMBEDS, ...CONNECTION } : EMBEDS;
  const list = useQuery({
    queryKey: [...keys.permissions, page],
    queryFn: ({ signal }) =>
      dbCount('permissions', { embed, deleted_at: 'is.null', order: 'created_at.desc', ...pageWindow(page) }, signal) as Promise<{
        rows: PermissionRow[];
        total: number;
      }>,
    placeholderData: keepPreviousData,
  });
  return { list };
}

/** Creating, changing and deleting permissions; each reloads the list. */
export function usePermissionWrites() {
  const queryClient = useQueryClient();
  const invalidate = () => queryClient.invalidateQueries({ queryKey: keys.permissions });
  const create = useMutation({
    mutationFn: (row: PermissionFields) => dbInsert('permissions', row),
    onSuccess: invalidate,
  });
  const update = useMutation({
    mutationFn: ({ id, row }: { id: string; row: Partial<PermissionFields> }) => dbUpdate('permissions', { id: `eq.${id}` }, row),
    onSuccess: invalidate,
  });
  const remove = useMutation({
    mutationFn: (id: string) => dbDelete('permissions', { id: `eq.${id}` }),
    onSuccess: invalidate,
  });
  return { create, update, remove };
}

/** The full permission being edited. */
export function usePermission(id: string | undefined) {
  return useQuery({
    // Not under the list's key: a write must not reload (or drop) the row being edited.
    queryKey: ['permission', id],
    queryFn: async ({ signal }) => (await dbSelect('permissions', { id: `eq.${id}` }, signal))[0] ?? null,
    enabled: Boolean(id),
    gcTime: 0,
  });
}

const LOOKUPS = {
  person: 'people',
  team: 'teams',
  notification: 'notifications',
  playbook: 'playbooks',
  connection: 'connections',
  canary: 'canaries',
  component: 'components',
  config: 'config_items',
} as const;

/** A row a picker offers: people with their email. */
interface LookupRow {
  id: string;
  name: string | null;
  email?: string | null;
}

function lookupRows(relation: (typeof LOOKUPS)[keyof typeof LOOKUPS], signal: AbortSignal): Promise<LookupRow[]> {
  const query = { deleted_at: 'is.null', order: 'name.asc', limit: 500 };
  return relation === 'people'
    ? dbSelect('people', { ...query, columns: ['id', 'name', 'email'] }, signal)
    : dbSelect(relation, { ...query, columns: ['id', 'name'] }, signal);
}

/** What a subject or resource picker of the given kind lists. */
export function useLookup(kind: string | ResourceKind) {
  const lookup = kind in LOOKUPS ? LOOKUPS[kind as keyof typeof LOOKUPS] : undefined;
  return useQuery({
    queryKey: ['db', lookup, 'lookup'],
    queryFn: ({ signal }) => (lookup ? lookupRows(lookup, signal) : []),
    enabled: Boolean(lookup),
    staleTime: 60_000,
  });
}
