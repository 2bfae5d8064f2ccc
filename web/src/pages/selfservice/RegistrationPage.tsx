import { Link } from 'react-router';
import { SelfServicePage } from './SelfServicePage';

/** /registration: 'Create account', while an admin allows it. */
export default function RegistrationPage() {
  return (
    <SelfServicePage
      kind="registration"
      title="Create account"
      footer={
        <>
          Already have an account? <Link to="/login">Sign in</Link>
        </>
      }
    />
  );
}
