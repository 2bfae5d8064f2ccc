import { EmptyState, EmptyStateBody, EmptyStateFooter, PageSection } from '@patternfly/react-core';
import { Link } from 'react-router';
import { useTopBar } from '../../app/topBar';

export default function NotFoundPage() {
  useTopBar('Not found');
  return (
    <PageSection>
      <EmptyState titleText="Page not found" headingLevel="h2">
        <EmptyStateBody>This page does not exist (yet).</EmptyStateBody>
        <EmptyStateFooter>
          <Link to="/">Go back</Link>
        </EmptyStateFooter>
      </EmptyState>
    </PageSection>
  );
}
