import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';

const KEY = ['profile', 'sso'] as const;

/** 'Manage Social Sign In': the caller's linked accounts, the providers
 * they may link, and unlinking (the list refreshes). */
export function useSocialSignIn() {
  const queryClient = useQueryClient();
  const accounts = useQuery({ queryKey: KEY, queryFn: ({ signal }) => unwrap(api.GET('/api/profile/sso', { signal })) });
  const unlink = useMutation({
    mutationFn: (slug: string) => unwrap(api.DELETE('/api/profile/sso/{slug}', { params: { path: { slug } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
  return { accounts, unlink };
}
