import {
  ActionGroup,
  Alert,
  Button,
  Form,
  FormGroup,
  FormHelperText,
  HelperText,
  HelperTextItem,
  LoginPage,
  TextInput,
} from '@patternfly/react-core';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { ApiError, errorMessage } from '../../api/errors';
import { PageSpinner } from '../../components/PageSpinner';
import { useSetPasswordData, type LinkKind } from './useSetPasswordData';

const TITLES: Record<LinkKind, string> = { invite: 'Accept invitation', reset: 'Reset password' };

function linkProblem(error: unknown): string {
  if (error instanceof ApiError && error.status === 404) return 'This link is not valid.';
  if (error instanceof ApiError && error.status === 410) return 'This link has expired or has already been used.';
  return errorMessage(error);
}

/** /invite and /reset-password: choose a password through a one-time link. */
export default function SetPasswordPage({ kind }: { kind: LinkKind }) {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const { target, redeem } = useSetPasswordData(kind, token);
  const [password, setPassword] = useState('');
  const fieldError = redeem.error instanceof ApiError ? redeem.error.fieldProblems.find((p) => p.field === 'password')?.message : undefined;

  return (
    <LoginPage loginTitle={TITLES[kind]} forgotCredentials={<Link to="/login">Sign in</Link>}>
      {!token && <Alert isInline variant="danger" title="This link is not valid." />}
      {target.isLoading && <PageSpinner />}
      {target.error && <Alert isInline variant="danger" title={linkProblem(target.error)} />}
      {redeem.error && !fieldError && <Alert isInline variant="danger" title={linkProblem(redeem.error)} />}
      {target.data && (
        <Form
          onSubmit={(event) => {
            event.preventDefault();
            redeem.mutate(password);
          }}
        >
          <FormGroup label="Email" fieldId="link-email">
            <TextInput id="link-email" value={target.data.email ?? ''} readOnly readOnlyVariant="default" />
          </FormGroup>
          <FormGroup label="New password" fieldId="link-password" isRequired>
            <TextInput
              id="link-password"
              type="password"
              autoComplete="new-password"
              isRequired
              value={password}
              validated={fieldError ? 'error' : 'default'}
              onChange={(_e, value) => setPassword(value)}
            />
            <FormHelperText>
              <HelperText>
                <HelperTextItem variant={fieldError ? 'error' : 'default'}>{fieldError ?? target.data.policy}</HelperTextItem>
              </HelperText>
            </FormHelperText>
          </FormGroup>
          <ActionGroup>
            <Button type="submit" isBlock isLoading={redeem.isPending} isDisabled={redeem.isPending || !password}>
              Set password and sign in
            </Button>
          </ActionGroup>
        </Form>
      )}
    </LoginPage>
  );
}
