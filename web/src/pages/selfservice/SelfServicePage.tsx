import { Alert, LoginPage } from '@patternfly/react-core';
import { useState, type ReactNode } from 'react';
import { Navigate, useSearchParams } from 'react-router';
import { ErrorPanel } from '../../components/ErrorPanel';
import { FlowForm } from '../../components/FlowForm';
import { PageSpinner } from '../../components/PageSpinner';
import { useSelfServiceFlow, type SelfServiceKind } from './useSelfServiceFlow';

interface Props {
  kind: SelfServiceKind;
  title: string;
  /** Links under the form (back to sign-in). */
  footer: ReactNode;
  /** What follows a flow that passed its challenge without going elsewhere. */
  done?: ReactNode;
}

/** The frame of the registration, recovery and verification pages: the
 * flow's form, or why the flow is off. */
export function SelfServicePage({ kind, title, footer, done }: Props) {
  const [params] = useSearchParams();
  const { flow, messages, disabled, redirect, loadError, isLoading, submit, isSubmitting } = useSelfServiceFlow(kind, params);
  const [values, setValues] = useState<Record<string, string>>({});
  if (redirect) return <Navigate to={redirect} replace />;
  return (
    <LoginPage loginTitle={title} forgotCredentials={footer}>
      {isLoading && <PageSpinner />}
      {loadError ? <ErrorPanel error={loadError} /> : null}
      {disabled && <Alert isInline variant="info" title={disabled} />}
      <FlowForm
        messages={messages}
        nodes={flow?.ui.nodes ?? []}
        values={values}
        onChange={(name, value) => setValues((v) => ({ ...v, [name]: value }))}
        onSubmit={submit}
        isSubmitting={isSubmitting}
        passwordAutoComplete="new-password"
      />
      {flow?.state === 'passed_challenge' && done}
    </LoginPage>
  );
}
