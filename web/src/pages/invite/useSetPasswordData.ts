import { useMutation, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';

export type LinkKind = 'invite' | 'reset';

const PATHS = { invite: '/api/auth/invite', reset: '/api/auth/password_reset' } as const;

/** The invitation or reset link in the URL, and redeeming it with a password. */
export function useSetPasswordData(kind: LinkKind, token: string) {
  const path = PATHS[kind];
  const target = useQuery({
    queryKey: ['link', kind, token],
    queryFn: () => unwrap(api.GET(path, { params: { query: { token } } })),
    enabled: token !== '',
    retry: false,
  });
  const redeem = useMutation({
    mutationFn: (password: string) => unwrap(api.POST(path, { body: { token, password } })),
    onSuccess: () => window.location.assign('/'),
  });
  return { target, redeem };
}
