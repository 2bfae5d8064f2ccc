import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../../api/client';
import { keys } from '../../app/queryKeys';

/** Creates a token of the caller; the Tokens list refreshes. */
export function useCreateToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas['CreateToken']) => unwrap(api.POST('/api/auth/create_token', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.tokens }),
  });
}

/** The Tokens screen: the caller's tokens (every token for admins), revoke. */
export function useTokensData() {
  const queryClient = useQueryClient();
  const invalidate = () => queryClient.invalidateQueries({ queryKey: keys.tokens });
  const list = useQuery({ queryKey: keys.tokens, queryFn: () => unwrap(api.GET('/api/auth/tokens')) });
  const revoke = useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/api/auth/token/{id}', { params: { path: { id } } })),
    onSuccess: invalidate,
  });
  return { list, revoke };
}
