import {
  ActionGroup,
  Alert,
  Button,
  Form,
  FormGroup,
  FormHelperText,
  HelperText,
  HelperTextItem,
  LoginPage as PfLoginPage,
  TextInput,
} from '@patternfly/react-core';
import { useState } from 'react';
import { Link, Navigate, useSearchParams } from 'react-router';
import { ErrorPanel } from '../../components/ErrorPanel';
import { PageSpinner } from '../../components/PageSpinner';
import { loginTitle } from '../../lib/loginFlow';
import { useLoginFlow } from './useLoginFlow';

export default function LoginPage() {
  const [params] = useSearchParams();
  const { redirect, flow, messages, loadError, isLoading, submit, isSubmitting } = useLoginFlow(params);
  const [values, setValues] = useState<Record<string, string>>(() => ({
    identifier: params.get('username') ?? '',
    password: params.get('password') ?? '',
  }));
  const title = loginTitle(params);

  if (redirect) return <Navigate to={redirect} replace />;

  const inputs = flow?.ui.nodes.filter((n) => ['text', 'email', 'password'].includes(n.attributes.type)) ?? [];
  const button = flow?.ui.nodes.find((n) => n.attributes.type === 'submit');

  return (
    <PfLoginPage
      loginTitle={title}
      textContent="Quarterdeck: the operations console for platform teams."
      forgotCredentials={<Link to="/recovery">Reset password</Link>}
    >
      {messages.map((m, i) => (
        <Alert key={`${m.id}-${i}`} isInline isPlain variant={m.type === 'error' ? 'danger' : 'info'} title={m.text} />
      ))}
      {isLoading && <PageSpinner />}
      {loadError ? <ErrorPanel error={loadError} /> : null}
      {flow && (
        <Form
          onSubmit={(event) => {
            event.preventDefault();
            submit(values.identifier ?? '', values.password ?? '');
          }}
        >
          {inputs.map((node) => {
            const name = node.attributes.name;
            const label = node.meta?.label?.text ?? name;
            return (
              <FormGroup key={name} label={label} fieldId={`login-${name}`} isRequired={node.attributes.required}>
                <TextInput
                  id={`login-${name}`}
                  name={name}
                  type={node.attributes.type === 'password' ? 'password' : node.attributes.type === 'email' ? 'email' : 'text'}
                  autoComplete={name === 'password' ? 'current-password' : 'username'}
                  isRequired={node.attributes.required}
                  value={values[name] ?? ''}
                  onChange={(_e, value) => setValues((v) => ({ ...v, [name]: value }))}
                />
                {node.messages?.length ? (
                  <FormHelperText>
                    <HelperText>
                      {node.messages.map((m) => (
                        <HelperTextItem key={m.id} variant={m.type === 'error' ? 'error' : 'default'}>
                          {m.text}
                        </HelperTextItem>
                      ))}
                    </HelperText>
                  </FormHelperText>
                ) : null}
              </FormGroup>
            );
          })}
          <ActionGroup>
            <Button type="submit" variant="primary" isBlock isLoading={isSubmitting} isDisabled={isSubmitting}>
              {button?.meta?.label?.text ?? 'Sign in'}
            </Button>
          </ActionGroup>
        </Form>
      )}
    </PfLoginPage>
  );
}
