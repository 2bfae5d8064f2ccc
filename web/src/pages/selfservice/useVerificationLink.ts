import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';

/** Uses a mailed verification link once (it works once, so never again on a re-render). */
export function useVerificationLink(token: string) {
  return useQuery({
    queryKey: ['verification-link', token],
    queryFn: () => unwrap(api.POST('/api/auth/verification/link', { body: { token } })),
    retry: false,
    staleTime: Infinity,
    gcTime: Infinity,
  });
}
