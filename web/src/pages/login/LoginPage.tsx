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
import { loginTitle, safeReturnTo } from '../../lib/loginFlow';
import { SsoButtons, SsoError } from './SsoButtons';
import { useLoginFlow } from './useLoginFlow';

function autoComplete(name: string): string {
  if (name === 'password') return 'current-password';
  if (name === 'identifier') return 'username';
  return name === 'totp_code' ? 'one-time-code' : 'off';
}

export default function LoginPage() {
  const [params] = useSearchParams();
  const { redirect, flow, messages, loadError, isLoading, submit, isSubmitting } = useLoginFlow(params);
  const [values, setValues] = useState<Record<string, string>>(() => ({
    identifier: params.get('username') ?? '',
    password: params.get('password') ?? '',
  }));
  const title = loginTitle(params);

  if (redirect) return <Navigate to={redirect} replace />;

  // One form per sign-in method (password; or an authenticator code and a
  // backup code for the second factor), each sending its own fields.
  const nodes = flow?.ui.nodes ?? [];
  const groups = [...new Set(nodes.filter((n) => n.group !== 'default').map((n) => n.group))];
  const isInput = (n: (typeof nodes)[number]) => ['text', 'email', 'password'].includes(n.attributes.type);

  return (
    <PfLoginPage
      loginTitle={title}
      textContent="Quarterdeck: the operations console for platform teams."
      forgotCredentials={<Link to="/recovery">Reset password</Link>}
    >
      {messages.map((m, i) => (
        <Alert key={`${m.id}-${i}`} isInline isPlain variant={m.type === 'error' ? 'danger' : 'info'} title={m.text} />
      ))}
      <SsoError code={params.get('sso_error')} />
      {isLoading && <PageSpinner />}
      {loadError ? <ErrorPanel error={loadError} /> : null}
      {flow &&
        groups.map((group) => {
          const inputs = nodes.filter((n) => n.group === group && isInput(n));
          const button = nodes.find((n) => n.group === group && n.attributes.type === 'submit');
          const method = typeof button?.attributes.value === 'string' ? button.attributes.value : group;
          return (
            <Form
              key={group}
              aria-label={button?.meta?.label?.text ?? group}
              onSubmit={(event) => {
                event.preventDefault();
                submit(method, Object.fromEntries(inputs.map((n) => [n.attributes.name, values[n.attributes.name] ?? ''])));
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
                      autoComplete={autoComplete(name)}
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
                <Button
                  type="submit"
                  variant={group === groups[0] ? 'primary' : 'secondary'}
                  isBlock
                  isLoading={isSubmitting}
                  isDisabled={isSubmitting}
                >
                  {button?.meta?.label?.text ?? 'Sign in'}
                </Button>
              </ActionGroup>
            </Form>
          );
        })}
      {params.get('aal') !== 'aal2' && <SsoButtons returnTo={safeReturnTo(params.get('return_to'))} />}
    </PfLoginPage>
  );
}
