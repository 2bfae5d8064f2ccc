import { PageSection } from '@patternfly/react-core';
import { useParams } from 'react-router';
import { ApiError } from '../../../api/errors';
import { SessionContext, useSessionData } from '../../../app/session';
import { ErrorPanel } from '../../../components/ErrorPanel';
import { PageSpinner } from '../../../components/PageSpinner';
import { RequireAccess } from '../../../components/RequireAccess';
import { ComponentView } from '../detail/ComponentView';
import './topologyView.css';

/** /view/topology/{id}: the component page without the shell's top bar and
 * sidebar. It needs read on topologies and, as the spec says of this route
 * alone, does not wait for the feature flags; signed-out callers go to
 * sign-in (a 401). */
export default function TopologyPublicView() {
  const { id = '' } = useParams();
  const { session, error } = useSessionData(false);
  let body;
  if (session)
    body = (
      <RequireAccess resource="topologies">
        <ComponentView key={id} id={id} base="/view/topology" />
      </RequireAccess>
    );
  else if (error && !(error instanceof ApiError && error.status === 401))
    body = (
      <PageSection>
        <ErrorPanel error={error} />
      </PageSection>
    );
  else body = <PageSpinner />;
  return (
    <SessionContext.Provider value={session ?? null}>
      <main className="qd-topology-view">{body}</main>
    </SessionContext.Provider>
  );
}
