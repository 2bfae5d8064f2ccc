import { ActionGroup, Alert, Button, ClipboardCopy, Content, Form, FormGroup, TextInput, Title } from '@patternfly/react-core';
import { useState } from 'react';
import { errorMessage } from '../../api/errors';
import { ErrorPanel } from '../../components/ErrorPanel';
import { PageSpinner } from '../../components/PageSpinner';
import type { SecondFactors } from './useSecondFactors';

/** 'Manage 2FA TOTP Authenticator App': enrol an app with its QR code (or
 * secret) and a code from it; remove it with a code or the password. */
export function TotpSection({ factors }: { factors: SecondFactors }) {
  const { status, beginTotp, confirmTotp, removeTotp } = factors;
  const [code, setCode] = useState('');
  const [proof, setProof] = useState('');
  const enrolment = beginTotp.data;
  const enrolled = status.data?.totp;

  return (
    <section aria-labelledby="totp-title">
      <Title headingLevel="h2" id="totp-title">
        Manage 2FA TOTP Authenticator App
      </Title>
      {status.isLoading && <PageSpinner />}
      {status.error ? <ErrorPanel error={status.error} /> : null}
      {status.data?.required && !enrolled && (
        <Alert
          isInline
          variant="warning"
          title="An administrator requires a second factor for your account. Set up an authenticator app to continue."
        />
      )}
      {enrolled === true && (
        <Form
          onSubmit={(event) => {
            event.preventDefault();
            const trimmed = proof.trim();
            removeTotp.mutate(/^\d{6}$/.test(trimmed) ? { code: trimmed } : { password: proof }, {
              onSuccess: () => setProof(''),
            });
          }}
        >
          <Content component="p">An authenticator app is enabled for your account.</Content>
          <FormGroup label="Authenticator code or password" fieldId="totp-remove-proof" isRequired>
            <TextInput
              id="totp-remove-proof"
              type="password"
              autoComplete="off"
              isRequired
              value={proof}
              onChange={(_e, value) => setProof(value)}
            />
          </FormGroup>
          {removeTotp.error ? <Alert isInline variant="danger" title={errorMessage(removeTotp.error)} /> : null}
          <ActionGroup>
            <Button type="submit" variant="danger" isLoading={removeTotp.isPending} isDisabled={removeTotp.isPending || !proof}>
              Remove authenticator app
            </Button>
          </ActionGroup>
        </Form>
      )}
      {enrolled === false && !enrolment && (
        <>
          <Content component="p">Use an authenticator app to sign in with a code as well as your password.</Content>
          {beginTotp.error ? <Alert isInline variant="danger" title={errorMessage(beginTotp.error)} /> : null}
          <Button variant="primary" onClick={() => beginTotp.mutate()} isLoading={beginTotp.isPending} isDisabled={beginTotp.isPending}>
            Set up authenticator app
          </Button>
        </>
      )}
      {enrolled === false && enrolment && (
        <Form
          onSubmit={(event) => {
            event.preventDefault();
            confirmTotp.mutate(code.trim(), { onSuccess: () => beginTotp.reset() });
          }}
        >
          <Content component="p">
            Scan the QR code with your authenticator app, or enter the secret key, then enter the code it shows.
          </Content>
          <img src={enrolment.qr} alt="QR code for the authenticator app" width={200} height={200} />
          <FormGroup label="Secret key" fieldId="totp-secret">
            <ClipboardCopy id="totp-secret" isReadOnly hoverTip="Copy" clickTip="Copied" textAriaLabel="Secret key">
              {enrolment.secret}
            </ClipboardCopy>
          </FormGroup>
          <FormGroup label="Verification code" fieldId="totp-code" isRequired>
            <TextInput
              id="totp-code"
              inputMode="numeric"
              autoComplete="one-time-code"
              isRequired
              value={code}
              onChange={(_e, value) => setCode(value)}
            />
          </FormGroup>
          {confirmTotp.error ? <Alert isInline variant="danger" title={errorMessage(confirmTotp.error)} /> : null}
          <ActionGroup>
            <Button type="submit" variant="primary" isLoading={confirmTotp.isPending} isDisabled={confirmTotp.isPending || !code.trim()}>
              Verify and enable
            </Button>
          </ActionGroup>
        </Form>
      )}
    </section>
  );
}
