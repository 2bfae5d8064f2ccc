import { Bullseye, EmptyState, EmptyStateBody, EmptyStateFooter } from '@patternfly/react-core';
import { Link, useSearchParams } from 'react-router';
import { errorPageMessage } from '../../lib/loginFlow';

export default function ErrorPage() {
  const [params] = useSearchParams();
  return (
    <Bullseye>
      <EmptyState titleText="Error" headingLevel="h1" status="danger">
        <EmptyStateBody>{errorPageMessage(params.get('error_code'))}</EmptyStateBody>
        <EmptyStateFooter>
          <Link to="/">Go back</Link>
        </EmptyStateFooter>
      </EmptyState>
    </Bullseye>
  );
}
