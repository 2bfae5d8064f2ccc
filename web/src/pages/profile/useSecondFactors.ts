import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';

const KEY = ['second-factor'] as const;

/** The caller's second factors and the calls that change them; each change
 * refreshes what the sections show. */
export function useSecondFactors() {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: KEY });
  const status = useQuery({ queryKey: KEY, queryFn: () => unwrap(api.GET('/api/auth/second-factor')) });
  const beginTotp = useMutation({ mutationFn: () => unwrap(api.POST('/api/auth/totp')) });
  const confirmTotp = useMutation({
    mutationFn: (code: string) => unwrap(api.POST('/api/auth/totp/confirm', { body: { code } })),
    onSuccess: refresh,
  });
  const removeTotp = useMutation({
    mutationFn: (proof: { code?: string; password?: string }) => unwrap(api.POST('/api/auth/totp/remove', { body: proof })),
    onSuccess: refresh,
  });
  const backupCodes = useMutation({
    mutationFn: () => unwrap(api.POST('/api/auth/backup-codes')),
    onSuccess: refresh,
  });
  return { status, beginTotp, confirmTotp, removeTotp, backupCodes };
}

export type SecondFactors = ReturnType<typeof useSecondFactors>;
