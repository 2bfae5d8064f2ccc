import { LoginPage as PfLoginPage } from '@patternfly/react-core';
import { useState } from 'react';
import { Link, Navigate, useSearchParams } from 'react-router';
import { ErrorPanel } from '../../components/ErrorPanel';
import { FlowForm } from '../../components/FlowForm';
import { PageSpinner } from '../../components/PageSpinner';
import { loginTitle, safeReturnTo } from '../../lib/loginFlow';
import { SsoButtons, SsoError } from './SsoButtons';
import { useLoginFlow } from './useLoginFlow';

export default function LoginPage() {
  const [params] = useSearchParams();
  const { redirect, nodes, messages, loadError, isLoading, submit, isSubmitting, registration } = useLoginFlow(params);
  const [values, setValues] = useState<Record<string, string>>(() => ({
    identifier: params.get('username') ?? '',
    password: params.get('password') ?? '',
  }));

  if (redirect) return <Navigate to={redirect} replace />;

  return (
    <PfLoginPage
      loginTitle={loginTitle(params)}
      textContent="Quarterdeck: the operations console for platform teams."
      forgotCredentials={<Link to="/recovery">Reset password</Link>}
      signUpForAccountMessage={
        registration ? (
          <>
            No account yet? <Link to="/registration">Create account</Link>
          </>
        ) : undefined
      }
    >
      <SsoError code={params.get('sso_error')} />
      {isLoading && <PageSpinner />}
      {loadError ? <ErrorPanel error={loadError} /> : null}
      <FlowForm
        messages={messages}
        nodes={nodes}
        values={values}
        onChange={(name, value) => setValues((v) => ({ ...v, [name]: value }))}
        onSubmit={submit}
        isSubmitting={isSubmitting}
        passwordAutoComplete="current-password"
      />
      {params.get('aal') !== 'aal2' && <SsoButtons returnTo={safeReturnTo(params.get('return_to'))} />}
    </PfLoginPage>
  );
}
