import { Button, Label, PageSection, Toolbar, ToolbarContent, ToolbarItem } from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { useState } from 'react';
import { Link } from 'react-router';
import type { PermissionRow } from '../../api/types';
import { useSession } from '../../app/session';
import { useTopBar } from '../../app/topBar';
import { DateTime } from '../../components/DateTime';
import { CrdBadge } from '../../components/Labels';
import { RequireAccess } from '../../components/RequireAccess';
import { TableStateRow } from '../../components/TableStates';
import { PermissionModal } from './PermissionModal';
import { usePermissionsData } from './usePermissionsData';

const COLUMNS = ['Subject', 'Resource', 'Action', 'Effect', 'Description', 'Created By', 'Created'];

/** A link that does not also open the row's editor. */
function RowLink({ to, children }: { to: string; children: string }) {
  return (
    <Link to={to} onClick={(e) => e.stopPropagation()}>
      {children}
    </Link>
  );
}

function Subject({ row }: { row: PermissionRow }) {
  if (row.person) return <RowLink to="/settings/users">{row.person.name}</RowLink>;
  if (row.team) return <RowLink to={`/settings/teams/${row.team.id}`}>{row.team.name}</RowLink>;
  if (row.notification) return <RowLink to={`/notifications/rules?id=${row.notification.id}`}>{row.notification.name}</RowLink>;
  if (row.subject_type === 'playbook' && row.subject)
    return <RowLink to={`/playbooks/${row.subject}`}>{`playbook ${row.subject}`}</RowLink>;
  return (
    <>
      {row.subject} <Label isCompact>{row.subject_type === 'group' ? 'role' : row.subject_type}</Label>
    </>
  );
}

function Resource({ row }: { row: PermissionRow }) {
  if (row.playbook) return <RowLink to={`/playbooks/${row.playbook.id}`}>{row.playbook.name}</RowLink>;
  if (row.connection) return <RowLink to={`/settings/connections/${row.connection.id}`}>{row.connection.name}</RowLink>;
  if (row.canary) return <RowLink to={`/settings/canaries/${row.canary.id}`}>{row.canary.name}</RowLink>;
  if (row.component) return <RowLink to={`/topology/${row.component.id}`}>{row.component.name}</RowLink>;
  if (row.config) return <RowLink to={`/catalog/${row.config.id}`}>{row.config.name}</RowLink>;
  if (row.object) return <Label isCompact>{row.object}</Label>;
  return row.object_selector ? <code>selector</code> : null;
}

function Permissions() {
  const { list } = usePermissionsData();
  const { authorizer } = useSession();
  const [editing, setEditing] = useState<string | 'new'>();
  useTopBar('Permissions', list.refetch, list.isFetching);
  const rows = list.data ?? [];
  return (
    <PageSection>
      {authorizer.can('permissions', 'write') && (
        <Toolbar>
          <ToolbarContent>
            <ToolbarItem>
              <Button onClick={() => setEditing('new')}>Add Permission</Button>
            </ToolbarItem>
          </ToolbarContent>
        </Toolbar>
      )}
      <Table aria-label="Permissions" variant="compact">
        <Thead>
          <Tr>
            {COLUMNS.map((c) => (
              <Th key={c}>{c}</Th>
            ))}
          </Tr>
        </Thead>
        <Tbody>
          <TableStateRow
            colSpan={COLUMNS.length}
            isLoading={list.isLoading}
            error={list.error}
            errorTitle="Error loading permissions"
            isEmpty={rows.length === 0}
          />
          {rows.map((row) => (
            <Tr
              key={row.id}
              isClickable={authorizer.can('permissions', 'write')}
              onRowClick={() => authorizer.can('permissions', 'write') && setEditing(row.id)}
            >
              <Td dataLabel="Subject">
                <Subject row={row} />
              </Td>
              <Td dataLabel="Resource">
                <Resource row={row} />
              </Td>
              <Td dataLabel="Action">{row.action}</Td>
              <Td dataLabel="Effect">
                <Label isCompact color={row.deny ? 'red' : 'green'}>
                  {row.deny ? 'Deny' : 'Allow'}
                </Label>
              </Td>
              <Td dataLabel="Description">{row.description}</Td>
              <Td dataLabel="Created By">
                {row.created_by?.name ?? ''} <CrdBadge source={row.source} />
              </Td>
              <Td dataLabel="Created">
                <DateTime value={row.created_at} />
              </Td>
            </Tr>
          ))}
        </Tbody>
      </Table>
      {editing && <PermissionModal id={editing === 'new' ? undefined : editing} onClose={() => setEditing(undefined)} />}
    </PageSection>
  );
}

export default function PermissionsPage() {
  return (
    <RequireAccess resource="permissions" feature="settings.permissions">
      <Permissions />
    </RequireAccess>
  );
}
