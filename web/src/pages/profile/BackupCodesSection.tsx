import { Alert, Button, Content, List, ListItem, Title } from '@patternfly/react-core';
import { errorMessage } from '../../api/errors';
import type { SecondFactors } from './useSecondFactors';

/** 'Manage 2FA Backup Recovery Codes': how many are left, and a new set,
 * shown this once. */
export function BackupCodesSection({ factors }: { factors: SecondFactors }) {
  const { status, backupCodes } = factors;
  const enrolled = status.data && (status.data.totp || status.data.security_keys.length > 0);
  const remaining = status.data?.backup_codes_remaining ?? 0;
  const codes = backupCodes.data?.codes;

  return (
    <section aria-labelledby="backup-codes-title">
      <Title headingLevel="h2" id="backup-codes-title">
        Manage 2FA Backup Recovery Codes
      </Title>
      {enrolled === false && (
        <Content component="p">Backup codes back up an authenticator app or a security key: set one up first.</Content>
      )}
      {enrolled === true && (
        <>
          <Content component="p">
            {remaining === 1 ? '1 backup code remaining.' : `${remaining} backup codes remaining.`} Each code signs you in once when your
            authenticator app or security key is not at hand.
          </Content>
          {codes && (
            <>
              <Alert isInline variant="warning" title="Save these codes now: they are shown only once." />
              <List aria-label="Backup recovery codes" isPlain>
                {codes.map((code) => (
                  <ListItem key={code}>
                    <code>{code}</code>
                  </ListItem>
                ))}
              </List>
            </>
          )}
          {backupCodes.error ? <Alert isInline variant="danger" title={errorMessage(backupCodes.error)} /> : null}
          <Button
            variant="secondary"
            onClick={() => backupCodes.mutate()}
            isLoading={backupCodes.isPending}
            isDisabled={backupCodes.isPending}
          >
            Generate new backup codes
          </Button>
        </>
      )}
    </section>
  );
}
