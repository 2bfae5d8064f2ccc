import { PageSection } from '@patternfly/react-core';
import { ApiError } from '../../api/errors';
import { SessionContext, useSessionData } from '../../app/session';
import { ErrorPanel } from '../../components/ErrorPanel';
import { PageSpinner } from '../../components/PageSpinner';
import HealthPage from './HealthPage';

/** /view/health: the Health page without the shell's top bar and sidebar,
 * for embedding. It signs in like the shell (a 401 goes to sign-in). */
export default function HealthEmbed() {
  const { session, error } = useSessionData();
  let body;
  if (session) body = <HealthPage />;
  else if (error && !(error instanceof ApiError && error.status === 401))
    body = (
      <PageSection>
        <ErrorPanel error={error} />
      </PageSection>
    );
  else body = <PageSpinner />;
  return (
    <SessionContext.Provider value={session ?? null}>
      <div className="qd-health-embed">{body}</div>
    </SessionContext.Provider>
  );
}
