import { useQuery } from '@tanstack/react-query';
import { createContext, useContext } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { dbSelect } from '../api/db';
import { createAuthorizer, type Authorizer } from '../lib/authorizer';
import { disabledFeatures, isFeatureEnabled } from './featureFlags';
import { keys } from './queryKeys';

export interface Session {
  user: Schemas['Person'];
  authorizer: Authorizer;
  isEnabled(feature: string): boolean;
}

export const SessionContext = createContext<Session | null>(null);

/** The signed-in user, their rights and the feature flags. */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession must be used inside the signed-in layout');
  return session;
}

/** Loads whoami and the feature flags together (features count as on until
 * the flags load when not `waitForFlags`). Signed-out browsers get a
 * 401, which sends them to sign-in (api/http.ts). */
export function useSessionData(waitForFlags = true): { session?: Session; error: unknown } {
  const whoami = useQuery({
    queryKey: keys.whoami,
    queryFn: () => unwrap(api.GET('/api/auth/whoami')),
    staleTime: 60_000,
    retry: false,
  });
  const flags = useQuery({
    queryKey: keys.properties,
    queryFn: ({ signal }) => dbSelect('properties', { columns: ['name', 'value'], order: 'name.asc' }, signal),
    retry: false,
  });
  if (!whoami.data || (waitForFlags && !flags.data)) return { error: whoami.error ?? (waitForFlags ? flags.error : null) };
  const { user, roles, rights } = whoami.data.payload;
  const disabled = disabledFeatures(flags.data ?? []);
  return {
    error: null,
    session: {
      user,
      authorizer: createAuthorizer(roles, rights),
      isEnabled: (feature) => isFeatureEnabled(disabled, feature),
    },
  };
}
