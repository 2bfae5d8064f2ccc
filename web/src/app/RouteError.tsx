import { Bullseye, EmptyState, EmptyStateBody } from '@patternfly/react-core';
import { useEffect } from 'react';
import { useRouteError } from 'react-router';
import { ErrorPanel } from '../components/ErrorPanel';

/** The error boundary of every route: uncaught render errors land here. */
export function RouteError() {
  const error = useRouteError();
  useEffect(() => {
    console.error(error);
  }, [error]);
  return (
    <Bullseye>
      <EmptyState titleText="Sorry.. there was an error" headingLevel="h1" status="danger">
        <EmptyStateBody>
          <ErrorPanel error={error} />
        </EmptyStateBody>
      </EmptyState>
    </Bullseye>
  );
}
