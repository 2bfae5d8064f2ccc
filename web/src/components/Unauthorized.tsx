import { EmptyState, EmptyStateBody, PageSection } from '@patternfly/react-core';
import LockIcon from '@patternfly/react-icons/dist/esm/icons/lock-icon';
import { useTopBar } from '../app/topBar';

export function Unauthorized() {
  useTopBar('Unauthorized');
  return (
    <PageSection>
      <EmptyState titleText="Unauthorized" headingLevel="h2" icon={LockIcon}>
        <EmptyStateBody>You do not have permission to access this page</EmptyStateBody>
      </EmptyState>
    </PageSection>
  );
}
