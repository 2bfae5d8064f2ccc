import { ActionGroup, Alert, Button, Checkbox, Content, Form, FormGroup, TextInput, Title } from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { useState } from 'react';
import { useLocation } from 'react-router';
import { ApiError, errorMessage } from '../../api/errors';
import { formatDateTime } from '../../lib/format';
import { promptProblem } from '../../lib/webauthn';
import { needsRefresh, refreshPath } from './refresh';
import type { SecondFactors } from './useSecondFactors';

/** 'Manage Hardware Tokens and Biometrics': security keys as a second
 * factor, and passkeys that sign in without a password. Adding or removing
 * one needs a recent sign-in; the page sends the person to confirm it. */
export function SecurityKeysSection({ factors }: { factors: SecondFactors }) {
  const location = useLocation();
  const { status, addKey, removeKey } = factors;
  const [name, setName] = useState('');
  const [passwordless, setPasswordless] = useState(false);
  const data = status.data;
  const keys = data?.security_keys ?? [];
  const origin = data?.webauthn_origin;
  const elsewhere = origin && origin !== window.location.origin;
  const onError = (error: unknown) => {
    if (needsRefresh(error)) window.location.assign(refreshPath(location.pathname + location.search));
  };
  const problem = (error: unknown) => (error instanceof ApiError ? errorMessage(error) : (promptProblem(error) ?? errorMessage(error)));
  const visibleError = [addKey.error, removeKey.error].find((e) => e && !needsRefresh(e));

  return (
    <section aria-labelledby="security-keys-title">
      <Title headingLevel="h2" id="security-keys-title">
        Manage Hardware Tokens and Biometrics
      </Title>
      {data?.webauthn_unavailable ? (
        <Alert isInline variant="info" title="Security keys cannot be used at this console">
          {data.webauthn_unavailable}
        </Alert>
      ) : null}
      {elsewhere ? (
        <Content component="p">
          Security keys work at <a href={`${origin}${location.pathname}`}>{origin}</a>: open the console there to add or use one.
        </Content>
      ) : null}
      {keys.length > 0 && (
        <Table aria-label="Security keys" variant="compact">
          <Thead>
            <Tr>
              <Th>Name</Th>
              <Th>Kind</Th>
              <Th>Added</Th>
              <Th>Last used</Th>
              <Th screenReaderText="Actions" />
            </Tr>
          </Thead>
          <Tbody>
            {keys.map((key) => (
              <Tr key={key.id}>
                <Td dataLabel="Name">{key.name}</Td>
                <Td dataLabel="Kind">{key.passwordless ? 'Passkey' : 'Security key'}</Td>
                <Td dataLabel="Added">{formatDateTime(key.created_at)}</Td>
                <Td dataLabel="Last used">{formatDateTime(key.last_used_at) || 'Never'}</Td>
                <Td isActionCell>
                  <Button
                    variant="link"
                    isDanger
                    aria-label={`Remove ${key.name}`}
                    isDisabled={removeKey.isPending}
                    onClick={() => removeKey.mutate(key.id, { onError })}
                  >
                    Remove
                  </Button>
                </Td>
              </Tr>
            ))}
          </Tbody>
        </Table>
      )}
      {visibleError ? <Alert isInline variant="danger" title={problem(visibleError)} /> : null}
      {origin && !elsewhere && (
        <Form
          onSubmit={(event) => {
            event.preventDefault();
            addKey.mutate(
              { name: name.trim(), passwordless },
              {
                onSuccess: () => {
                  setName('');
                  setPasswordless(false);
                },
                onError,
              },
            );
          }}
        >
          <Content component="p">
            {keys.length === 0
              ? 'Use a hardware key or your device’s biometrics as a second factor, or as a passkey that signs you in without a password.'
              : 'Add another key, so that losing one does not lock you out.'}
          </Content>
          <FormGroup label="Key name" fieldId="security-key-name" isRequired>
            <TextInput id="security-key-name" isRequired maxLength={100} value={name} onChange={(_e, value) => setName(value)} />
          </FormGroup>
          <Checkbox
            id="security-key-passwordless"
            label="Use as a passkey: sign in with it alone, without a password"
            description="The key must check your PIN or biometrics."
            isChecked={passwordless}
            onChange={(_e, checked) => setPasswordless(checked)}
          />
          <ActionGroup>
            <Button type="submit" variant="primary" isLoading={addKey.isPending} isDisabled={addKey.isPending || !name.trim()}>
              Add security key
            </Button>
          </ActionGroup>
        </Form>
      )}
    </section>
  );
}
