import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../../api/client';
import { dbSelect } from '../../api/db';

const KEY = ['settings', 'sso'] as const;

export type SsoProvider = Schemas['SsoProvider'];
export type SsoProviderInput = Schemas['SsoProviderInput'];

/** The Single Sign-On screen: the providers, the teams mappings may name,
 * and the writes (each refreshes the list). */
export function useSsoProvidersData() {
  const queryClient = useQueryClient();
  const invalidate = () => queryClient.invalidateQueries({ queryKey: KEY });
  const list = useQuery({ queryKey: KEY, queryFn: ({ signal }) => unwrap(api.GET('/api/settings/sso', { signal })) });
  const teams = useQuery({
    queryKey: ['db', 'teams', 'names'],
    queryFn: ({ signal }) => dbSelect('teams', { columns: ['id', 'name'], deleted_at: 'is.null', order: 'name' }, signal),
  });
  const create = useMutation({
    mutationFn: (body: SsoProviderInput) => unwrap(api.POST('/api/settings/sso', { body })),
    onSuccess: invalidate,
  });
  const update = useMutation({
    mutationFn: ({ slug, body }: { slug: string; body: SsoProviderInput }) =>
      unwrap(api.PUT('/api/settings/sso/{slug}', { params: { path: { slug } }, body })),
    onSuccess: invalidate,
  });
  const remove = useMutation({
    mutationFn: (slug: string) => unwrap(api.DELETE('/api/settings/sso/{slug}', { params: { path: { slug } } })),
    onSuccess: invalidate,
  });
  return { list, teams, create, update, remove };
}

export type SsoProvidersData = ReturnType<typeof useSsoProvidersData>;
