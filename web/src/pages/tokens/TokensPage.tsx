import { Button, PageSection } from '@patternfly/react-core';
import { useState } from 'react';
import type { Schemas } from '../../api/client';
import { errorMessage } from '../../api/errors';
import { useToast } from '../../app/toast';
import { useTopBar } from '../../app/topBar';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable, type Column } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { LabelList } from '../../components/Labels';
import { RequireAccess } from '../../components/RequireAccess';
import { CreateTokenModal, type CreatedToken } from './CreateTokenModal';
import { TokenCreatedModal } from './TokenCreatedModal';
import { useTokensData } from './useTokensData';

type Token = Schemas['TokenInfo'];
const COLUMNS: Column<Token>[] = [
  { title: 'Name', cell: (token) => token.name },
  {
    title: 'Scopes',
    cell: (token) => <LabelList items={(token.scope ?? []).map((g) => `${g.object}:${g.action}`)} label={`Scopes of ${token.name}`} />,
  },
  { title: 'Expires', cell: (token) => (token.expires_at ? <DateTime value={token.expires_at} /> : 'Never') },
  { title: 'Auto Renew', cell: (token) => (token.auto_renew ? 'Yes' : 'No') },
  { title: 'Created', cell: (token) => <DateTime value={token.created_at} /> },
  { title: 'Last Used', cell: (token) => <DateTime value={token.last_used_at} /> },
];

function Tokens() {
  const data = useTokensData();
  const { list } = data;
  const toast = useToast();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedToken>();
  const [revoking, setRevoking] = useState<Token>();
  useTopBar('Tokens', list.refetch, list.isFetching);

  return (
    <PageSection>
      <DataTable
        aria-label="Tokens"
        columns={COLUMNS}
        query={list}
        errorTitle="Error loading tokens"
        rowKey={(token) => token.id}
        toolbar={<Button onClick={() => setCreating(true)}>Create Token</Button>}
        actions={(token) => (
          <Button variant="secondary" isDanger size="sm" aria-label={`Revoke ${token.name}`} onClick={() => setRevoking(token)}>
            Revoke
          </Button>
        )}
      />
      {creating && (
        <CreateTokenModal
          onClose={() => setCreating(false)}
          onCreated={(token) => {
            setCreating(false);
            setCreated(token);
          }}
        />
      )}
      {created && <TokenCreatedModal token={created} onClose={() => setCreated(undefined)} />}
      {revoking && (
        <ConfirmDialog
          isOpen
          title="Revoke token"
          message={`Are you sure you want to revoke the token ${revoking.name}? Anything using it will lose access.`}
          confirmLabel="Revoke"
          isBusy={data.revoke.isPending}
          onCancel={() => setRevoking(undefined)}
          onConfirm={() =>
            data.revoke.mutate(revoking.id, {
              onSuccess: () => (toast.success(`${revoking.name} deleted successfully`), setRevoking(undefined)),
              onError: (e) => (toast.error(errorMessage(e)), setRevoking(undefined)),
            })
          }
        />
      )}
    </PageSection>
  );
}

export default function TokensPage() {
  return (
    <RequireAccess resource="auth">
      <Tokens />
    </RequireAccess>
  );
}
