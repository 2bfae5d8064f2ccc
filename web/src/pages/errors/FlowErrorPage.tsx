import { Bullseye, EmptyState, EmptyStateBody, EmptyStateFooter } from '@patternfly/react-core';
import { Link, Navigate, useSearchParams } from 'react-router';
import { FLOW_MESSAGES } from '../../lib/loginFlow';

/** Identity-flow errors by id. The server keeps no error records, so the ids
 * it answers with are described here; any other id goes back to /. */
const MESSAGES: Record<string, string> = {
  self_service_flow_expired: FLOW_MESSAGES.expired,
  security_csrf_violation: FLOW_MESSAGES.csrf,
  self_service_flow_return_to_forbidden: FLOW_MESSAGES.returnToForbidden,
};

export default function FlowErrorPage() {
  const [params] = useSearchParams();
  const message = MESSAGES[params.get('id') ?? ''];
  if (!message) return <Navigate to="/" replace />;
  return (
    <Bullseye>
      <EmptyState titleText="Sign-in error" headingLevel="h1" status="warning">
        <EmptyStateBody>{message}</EmptyStateBody>
        <EmptyStateFooter>
          <Link to="/login">Sign in</Link>
        </EmptyStateFooter>
      </EmptyState>
    </Bullseye>
  );
}
