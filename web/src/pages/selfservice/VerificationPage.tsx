import { Alert, LoginPage } from '@patternfly/react-core';
import { Link, useSearchParams } from 'react-router';
import { errorMessage } from '../../api/errors';
import { PageSpinner } from '../../components/PageSpinner';
import { safeReturnTo } from '../../lib/loginFlow';
import { SelfServicePage } from './SelfServicePage';
import { useVerificationLink } from './useVerificationLink';

const TITLE = 'Verify your account';

/** A mailed link (`?token=`): verifies on arrival, in any browser. */
function LinkVerification({ token }: { token: string }) {
  const verified = useVerificationLink(token);
  return (
    <LoginPage loginTitle={TITLE} forgotCredentials={<Link to="/verification">Send a new code</Link>}>
      {verified.isPending && <PageSpinner />}
      {verified.isSuccess && (
        <Alert isInline variant="success" title={`You successfully verified your email address ${verified.data.email}.`} />
      )}
      {verified.isError && <Alert isInline variant="danger" title={errorMessage(verified.error)} />}
      {verified.isSuccess && <Link to="/">Continue</Link>}
    </LoginPage>
  );
}

/** /verification: 'Verify your account' by a mailed code or link. */
export default function VerificationPage() {
  const [params] = useSearchParams();
  const token = params.get('token');
  if (token) return <LinkVerification token={token} />;
  return (
    <SelfServicePage
      kind="verification"
      title={TITLE}
      footer={<Link to="/login">Sign in</Link>}
      done={<Link to={safeReturnTo(params.get('return_to'))}>Continue</Link>}
    />
  );
}
