import { EmptyState, EmptyStateBody, PageSection } from '@patternfly/react-core';
import { Navigate } from 'react-router';
import { visibleMain, visibleSettings } from './nav';
import { useSession } from './session';
import { useTopBar } from './topBar';

/** The first screen this user may open. */
export default function HomeRedirect() {
  const session = useSession();
  useTopBar('Home');
  const first = visibleMain(session)[0] ?? visibleSettings(session)[0];
  if (first) return <Navigate to={first.href} replace />;
  return (
    <PageSection>
      <EmptyState titleText={`Welcome, ${session.user.name}`} headingLevel="h2">
        <EmptyStateBody>There is nothing here for your role yet.</EmptyStateBody>
      </EmptyState>
    </PageSection>
  );
}
