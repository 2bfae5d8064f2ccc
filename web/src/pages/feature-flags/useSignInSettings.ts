import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../../api/client';

const IDENTITY = ['settings', 'identity'] as const;
const SECOND_FACTOR = ['settings', 'second-factor'] as const;

export type IdentitySettings = Schemas['IdentitySettings'];
export type SecondFactorRequired = 'nobody' | 'admins' | 'everyone';

/** The sign-in settings card's data: self-service identity, who must have
 * a second factor, and the e-mail connections mail may go through. */
export function useSignInSettings() {
  const client = useQueryClient();
  const identity = useQuery({ queryKey: IDENTITY, queryFn: ({ signal }) => unwrap(api.GET('/api/settings/identity', { signal })) });
  const secondFactor = useQuery({
    queryKey: SECOND_FACTOR,
    queryFn: ({ signal }) => unwrap(api.GET('/api/settings/second-factor', { signal })),
  });
  const mailConnections = useQuery({
    queryKey: ['connections', 'options', 'email'],
    queryFn: ({ signal }) => unwrap(api.GET('/api/connections/options', { params: { query: { type: ['email'] } }, signal })),
  });
  // Two settings, two calls: each is sent only when it changed, and one
  // saved before the other failed is kept in the cache, so the card shows
  // what the server holds.
  const save = useMutation({
    mutationFn: async ({ settings, required }: { settings: IdentitySettings; required: SecondFactorRequired }) => {
      if (JSON.stringify(settings) !== JSON.stringify(identity.data)) {
        client.setQueryData(IDENTITY, await unwrap(api.PUT('/api/settings/identity', { body: settings })));
      }
      if (required !== secondFactor.data?.required) {
        client.setQueryData(SECOND_FACTOR, await unwrap(api.PUT('/api/settings/second-factor', { body: { required } })));
      }
    },
  });
  return { identity, secondFactor, mailConnections, save };
}
