import { useQuery } from '@tanstack/react-query';
import { createContext, useContext } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { dbSelect } from '../api/db';
import { ApiError } from '../api/errors';
import { redirectToLogin } from '../api/http';
import type { PropertyRow } from '../api/types';
import { createAuthorizer, type Authorizer } from '../lib/authorizer';
import { disabledFeatures, isFeatureEnabled } from '../lib/featureFlags';
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

/** Signed-out browsers go to sign-in. This is asked first because the session
 * check answers 401 without a Basic challenge, which would make the browser
 * prompt for a password instead of handing the 401 to the app. */
async function requireSession(): Promise<true> {
  const { response } = await api.GET('/api/auth/session');
  if (response.status === 401) {
    redirectToLogin();
    throw new ApiError(401, null, 'Not signed in');
  }
  if (!response.ok) throw new ApiError(response.status, null);
  return true;
}

/** Loads the session, whoami and the feature flags. */
export function useSessionData(): { session?: Session; error: unknown } {
  const signedIn = useQuery({ queryKey: keys.session, queryFn: requireSession, staleTime: 60_000, retry: false });
  const whoami = useQuery({
    queryKey: keys.whoami,
    queryFn: () => unwrap(api.GET('/api/auth/whoami')),
    staleTime: 60_000,
    enabled: signedIn.isSuccess,
  });
  const flags = useQuery({
    queryKey: keys.properties,
    queryFn: ({ signal }) => dbSelect<PropertyRow>('properties', { select: 'name,value', order: 'name.asc' }, signal),
    enabled: signedIn.isSuccess,
  });
  if (!whoami.data || !flags.data) return { error: signedIn.error ?? whoami.error ?? flags.error };
  const { user, roles, permissions } = whoami.data.payload;
  const disabled = disabledFeatures(flags.data);
  return {
    error: null,
    session: {
      user,
      authorizer: createAuthorizer(roles, permissions),
      isEnabled: (feature) => isFeatureEnabled(disabled, feature),
    },
  };
}
