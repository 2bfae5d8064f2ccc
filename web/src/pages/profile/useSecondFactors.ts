import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { createCredential } from '../../lib/webauthn';

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
  // Begin (the API's options), make the key (the browser's prompt), finish.
  const addKey = useMutation({
    mutationFn: async (key: { name: string; passwordless: boolean }) => {
      const begun = await unwrap(api.POST('/api/auth/webauthn/registration', { body: key }));
      const credential = await createCredential(begun.options);
      return unwrap(api.POST('/api/auth/webauthn/credentials', { body: { registration: begun.id, credential } }));
    },
    onSuccess: refresh,
  });
  const removeKey = useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/api/auth/webauthn/credentials/{id}', { params: { path: { id } } })),
    onSuccess: refresh,
  });
  return { status, beginTotp, confirmTotp, removeTotp, backupCodes, addKey, removeKey };
}

export type SecondFactors = ReturnType<typeof useSecondFactors>;
