import { Link } from 'react-router';
import { SelfServicePage } from './SelfServicePage';

/** /recovery: 'Recover account' by a mailed code, then a new password.
 * Without mail the page says to ask an administrator for a reset link. */
export default function RecoveryPage() {
  return <SelfServicePage kind="recovery" title="Recover account" footer={<Link to="/login">Sign in</Link>} />;
}
