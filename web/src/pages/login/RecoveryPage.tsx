import { LoginPage, Content } from '@patternfly/react-core';
import { Link } from 'react-router';

/** Accounts are recovered through a one-time reset link from an administrator. */
export default function RecoveryPage() {
  return (
    <LoginPage loginTitle="Recover account" forgotCredentials={<Link to="/login">Sign in</Link>}>
      <Content component="p">Ask an administrator for a password reset link: it lets you choose a new password.</Content>
    </LoginPage>
  );
}
