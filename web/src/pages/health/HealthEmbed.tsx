import { SessionGate } from '../../app/SessionGate';
import { SessionContext, useSessionData } from '../../app/session';
import HealthPage from './HealthPage';

/** /view/health: the Health page without the shell's top bar and sidebar,
 * for embedding. It signs in like the shell (a 401 goes to sign-in). */
export default function HealthEmbed() {
  const { session, error } = useSessionData();
  return (
    <SessionContext.Provider value={session ?? null}>
      <div className="qd-health-embed">
        <SessionGate session={session} error={error}>
          <HealthPage />
        </SessionGate>
      </div>
    </SessionContext.Provider>
  );
}
