import { PageSection } from '@patternfly/react-core';
import type { ReactNode } from 'react';
import { ApiError } from '../api/errors';
import { ErrorPanel } from '../components/ErrorPanel';
import { PageSpinner } from '../components/PageSpinner';
import type { Session } from './session';

/** `children` once the session has loaded; before, a spinner, or the error
 * that stopped it (but a 401, which is on its way to sign-in). */
export function SessionGate({ session, error, children }: { session?: Session; error: unknown; children: ReactNode }) {
  if (session) return children;
  if (error && !(error instanceof ApiError && error.status === 401))
    return (
      <PageSection>
        <ErrorPanel error={error} />
      </PageSection>
    );
  return <PageSpinner />;
}
