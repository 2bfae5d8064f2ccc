import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';

/** The sign-in page's single sign-on buttons: the enabled providers. */
export function useSsoButtons() {
  return useQuery({
    queryKey: ['auth', 'sso', 'providers'],
    queryFn: ({ signal }) => unwrap(api.GET('/api/auth/sso/providers', { signal })),
    staleTime: 60_000,
  });
}
