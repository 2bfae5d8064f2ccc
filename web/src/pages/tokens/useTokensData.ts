import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../../api/client';
import { keys } from '../../app/queryKeys';

/** The Tokens screen: the caller's tokens (every token for admins), create, revoke. */
export function useTokensData() {
  const queryClient = useQueryClient();
  const invalidate = () => queryClient.invalidateQueries({ queryKey: keys.tokens });
  const list = useQuery({ queryKey: keys.tokens, queryFn: () => unwrap(api.GET('/api/auth/tokens')) });
  const create = useMutation({
    mutationFn: (body: Schemas['CreateToken']) => unwrap(api.POST('/api/auth/create_token', { body })),
    onSuccess: invalidate,
  });
  const revoke = useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/api/auth/token/{id}', { params: { path: { id } } })),
    onSuccess: invalidate,
  });
  return { list, create, revoke };
}
