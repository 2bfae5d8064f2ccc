import {
  ActionGroup,
  Button,
  Card,
  CardBody,
  CardTitle,
  Form,
  FormGroup,
  FormHelperText,
  HelperText,
  HelperTextItem,
  TextInput,
} from '@patternfly/react-core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useLocation } from 'react-router';
import { api, unwrap } from '../../api/client';
import { ApiError, errorMessage } from '../../api/errors';
import { FieldError } from '../../components/FieldError';
import { FlashAlert } from './FlashAlert';
import { needsRefresh, refreshPath } from './refresh';
import { useFlash } from './useFlash';

const POLICY = 'Password must be at least 12 characters long and must not be your email address.';

/** 'Change Password': the current password and a new one. */
export function PasswordSection() {
  const location = useLocation();
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [flash, setFlash] = useFlash();
  const change = useMutation({
    mutationFn: () => unwrap(api.POST('/api/profile/password', { body: { current_password: current, password } })),
    onMutate: () => setFlash(undefined),
    onSuccess: () => {
      setCurrent('');
      setPassword('');
      setFlash({ variant: 'success', text: 'Your password was changed; your other sessions were signed out.' });
    },
    onError: (error) => {
      if (needsRefresh(error)) window.location.assign(refreshPath(location.pathname + location.search));
      else if (!(error instanceof ApiError && error.fieldProblems.length)) setFlash({ variant: 'danger', text: errorMessage(error) });
    },
  });
  const problem = (field: string) =>
    change.error instanceof ApiError ? change.error.fieldProblems.find((p) => p.field === field)?.message : undefined;

  return (
    <Card isPlain>
      <CardTitle component="h2">Change Password</CardTitle>
      <CardBody>
        <Form
          onSubmit={(event) => {
            event.preventDefault();
            change.mutate();
          }}
        >
          <FormGroup label="Current password" fieldId="password-current" isRequired>
            <TextInput
              id="password-current"
              type="password"
              autoComplete="current-password"
              isRequired
              value={current}
              validated={problem('current_password') ? 'error' : 'default'}
              onChange={(_e, value) => setCurrent(value)}
            />
            <FieldError text={problem('current_password')} />
          </FormGroup>
          <FormGroup label="New password" fieldId="password-new" isRequired>
            <TextInput
              id="password-new"
              type="password"
              autoComplete="new-password"
              isRequired
              value={password}
              validated={problem('password') ? 'error' : 'default'}
              onChange={(_e, value) => setPassword(value)}
            />
            <FormHelperText>
              <HelperText>
                <HelperTextItem variant={problem('password') ? 'error' : 'default'}>{problem('password') ?? POLICY}</HelperTextItem>
              </HelperText>
            </FormHelperText>
          </FormGroup>
          <FlashAlert flash={flash} />
          <ActionGroup>
            <Button type="submit" isLoading={change.isPending} isDisabled={change.isPending || !current || !password}>
              Change password
            </Button>
          </ActionGroup>
        </Form>
      </CardBody>
    </Card>
  );
}
