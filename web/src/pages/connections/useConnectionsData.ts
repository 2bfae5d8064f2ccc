import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../../api/client';
import type { paths } from '../../api/schema';
import type { requestBody } from './connectionForm';

export const CONNECTIONS_KEY = ['connections'] as const;

export type ConnectionBody = ReturnType<typeof requestBody>;

/** A connection type id, as the options call takes it. */
export type ConnectionTypeId = NonNullable<NonNullable<paths['/api/connections/options']['get']['parameters']['query']>['type']>[number];

/** The Connections list (admins only). */
export function useConnectionsData() {
  const list = useQuery({ queryKey: CONNECTIONS_KEY, queryFn: ({ signal }) => unwrap(api.GET('/api/connections', { signal })) });
  return { list };
}

/** One connection (none while adding), its writes and its Test. */
export function useConnectionData(id: string | undefined) {
  const queryClient = useQueryClient();
  const path = { params: { path: { id: id ?? '' } } };
  const connection = useQuery({
    queryKey: [...CONNECTIONS_KEY, id],
    queryFn: ({ signal }) => unwrap(api.GET('/api/connections/{id}', { ...path, signal })),
    enabled: Boolean(id),
  });
  const invalidate = () => queryClient.invalidateQueries({ queryKey: CONNECTIONS_KEY });
  const create = useMutation({
    // The document has one body per type; the form builds it from the catalogue at run time.
    mutationFn: (body: ConnectionBody) => unwrap(api.POST('/api/connections', { body: body as Schemas['ConnectionInput'] })),
    onSuccess: invalidate,
  });
  const update = useMutation({
    mutationFn: (body: ConnectionBody) => unwrap(api.PUT('/api/connections/{id}', { ...path, body: body as Schemas['ConnectionUpdate'] })),
    onSuccess: invalidate,
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/connections/{id}', path)),
    onSuccess: invalidate,
  });
  const test = useMutation({ mutationFn: () => unwrap(api.POST('/api/connection/test/{id}', path)) });
  return { connection, create, update, remove, test };
}

/** Connections of the given types for pickers: names and refs only, for anyone who may write what names them. */
export function useConnectionOptions(types: readonly ConnectionTypeId[]) {
  return useQuery({
    queryKey: [...CONNECTIONS_KEY, 'options', ...types],
    queryFn: ({ signal }) => unwrap(api.GET('/api/connections/options', { params: { query: { type: [...types] } }, signal })),
    staleTime: 30_000,
  });
}
