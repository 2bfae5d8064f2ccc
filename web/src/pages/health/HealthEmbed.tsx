import { useEffect } from 'react';
import { ApiError } from '../../api/errors';
import { useAbout } from '../../app/about';
import { SessionGate } from '../../app/SessionGate';
import { SessionContext, useSessionData } from '../../app/session';
import { PageSpinner } from '../../components/PageSpinner';
import { loginPath } from '../../lib/requestErrors';
import HealthPage, { PublicHealthPage } from './HealthPage';

/** A visitor who is not signed in: the published checks, or sign-in when
 * health is not published (`--public-health`, decision 104.15). */
function Visitor() {
  const about = useAbout();
  const published = about.data?.public_health === true;
  useEffect(() => {
    if (about.isFetched && !published) window.location.assign(loginPath(window.location.pathname + window.location.search));
  }, [about.isFetched, published]);
  return published ? <PublicHealthPage /> : <PageSpinner />;
}

/** /view/health: the Health page without the shell's top bar and sidebar,
 * for embedding. Signed in, it is the caller's Health page; signed out, the
 * published one. */
export default function HealthEmbed() {
  const { session, error } = useSessionData();
  const signedOut = error instanceof ApiError && error.status === 401;
  return (
    <div className="qd-health-embed">
      {signedOut ? (
        <Visitor />
      ) : (
        <SessionContext.Provider value={session ?? null}>
          <SessionGate session={session} error={error}>
            <HealthPage />
          </SessionGate>
        </SessionContext.Provider>
      )}
    </div>
  );
}
