import { Button, PageSection, Toolbar, ToolbarContent, ToolbarItem } from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { useState } from 'react';
import type { Schemas } from '../../api/client';
import { errorMessage } from '../../api/errors';
import { useToast } from '../../app/toast';
import { useTopBar } from '../../app/topBar';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DateTime } from '../../components/DateTime';
import { LabelList } from '../../components/Labels';
import { RequireAccess } from '../../components/RequireAccess';
import { TableStateRow } from '../../components/TableStates';
import { CreateTokenModal, type CreatedToken } from './CreateTokenModal';
import { TokenCreatedModal } from './TokenCreatedModal';
import { useTokensData } from './useTokensData';

type Token = Schemas['TokenInfo'];
const COLUMNS = ['Name', 'Scopes', 'Expires', 'Auto Renew', 'Created', 'Last Used', ''];

function Tokens() {
  const data = useTokensData();
  const { list } = data;
  const toast = useToast();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedToken>();
  const [revoking, setRevoking] = useState<Token>();
  useTopBar('Tokens', list.refetch, list.isFetching);
  const rows = list.data ?? [];

  return (
    <PageSection>
      <Toolbar>
        <ToolbarContent>
          <ToolbarItem>
            <Button onClick={() => setCreating(true)}>Create Token</Button>
          </ToolbarItem>
        </ToolbarContent>
      </Toolbar>
      <Table aria-label="Tokens" variant="compact">
        <Thead>
          <Tr>
            {COLUMNS.map((c, i) => (i === COLUMNS.length - 1 ? <Th key="actions" screenReaderText="Actions" /> : <Th key={c}>{c}</Th>))}
          </Tr>
        </Thead>
        <Tbody>
          <TableStateRow
            colSpan={COLUMNS.length}
            isLoading={list.isLoading}
            error={list.error}
            errorTitle="Error loading tokens"
            isEmpty={rows.length === 0}
          />
          {rows.map((token) => (
            <Tr key={token.id}>
              <Td dataLabel="Name">{token.name}</Td>
              <Td dataLabel="Scopes">
                <LabelList items={(token.scope ?? []).map((g) => `${g.object}:${g.action}`)} label={`Scopes of ${token.name}`} />
              </Td>
              <Td dataLabel="Expires">{token.expires_at ? <DateTime value={token.expires_at} /> : 'Never'}</Td>
              <Td dataLabel="Auto Renew">{token.auto_renew ? 'Yes' : 'No'}</Td>
              <Td dataLabel="Created">
                <DateTime value={token.created_at} />
              </Td>
              <Td dataLabel="Last Used">
                <DateTime value={token.last_used_at} />
              </Td>
              <Td isActionCell>
                <Button variant="secondary" isDanger size="sm" aria-label={`Revoke ${token.name}`} onClick={() => setRevoking(token)}>
                  Revoke
                </Button>
              </Td>
            </Tr>
          ))}
        </Tbody>
      </Table>
      {creating && (
        <CreateTokenModal
          data={data}
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
