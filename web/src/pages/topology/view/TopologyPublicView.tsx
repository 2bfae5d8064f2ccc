import { useParams } from 'react-router';
import { SessionGate } from '../../../app/SessionGate';
import { SessionContext, useSessionData } from '../../../app/session';
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
  return (
    <SessionContext.Provider value={session ?? null}>
      <main className="qd-topology-view">
        <SessionGate session={session} error={error}>
          <RequireAccess resource="topologies">
            <ComponentView key={id} id={id} base="/view/topology" />
          </RequireAccess>
        </SessionGate>
      </main>
    </SessionContext.Provider>
  );
}
