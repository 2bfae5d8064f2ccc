import { Button, Label, PageSection, ToolbarItem } from '@patternfly/react-core';
import { useState } from 'react';
import { Link } from 'react-router';
import type { PermissionRow } from './usePermissionsData';
import { useSession } from '../../app/session';
import { useTopBar } from '../../app/topBar';
import { type Column } from '../../components/ListTable';
import { PagedList, useListSearch } from '../../components/PagedList';
import { PAGE_SIZES } from '../../app/preferences';
import { parsePermissionsPage } from './permissionsPage';
import { DateTime } from '../../components/DateTime';
import { CrdBadge } from '../../components/Labels';
import { RequireAccess } from '../../components/RequireAccess';
import { PermissionModal } from './PermissionModal';
import { usePermissionsData } from './usePermissionsData';

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
  if (row.config) return <RowLink to={`/catalog/${row.config.id}`}>{row.config.name ?? row.config.id}</RowLink>;
  if (row.object) return <Label isCompact>{row.object}</Label>;
  return row.object_selector ? <code>selector</code> : null;
}

const COLUMNS: Column<PermissionRow>[] = [
  { title: 'Subject', cell: (row) => <Subject row={row} /> },
  { title: 'Resource', cell: (row) => <Resource row={row} /> },
  { title: 'Action', cell: (row) => row.action },
  {
    title: 'Effect',
    cell: (row) => (
      <Label isCompact color={row.deny ? 'red' : 'green'}>
        {row.deny ? 'Deny' : 'Allow'}
      </Label>
    ),
  },
  { title: 'Description', cell: (row) => row.description },
  {
    title: 'Created By',
    cell: (row) => (
      <>
        {row.created_by?.name ?? ''} <CrdBadge source={row.source} />
      </>
    ),
  },
  { title: 'Created', cell: (row) => <DateTime value={row.created_at} /> },
];

function Permissions() {
  const [page, update] = useListSearch(parsePermissionsPage);
  const { list } = usePermissionsData(page);
  const { authorizer } = useSession();
  const [editing, setEditing] = useState<string | 'new'>();
  useTopBar('Permissions', list.refetch, list.isFetching);
  const canWrite = authorizer.can('permissions', 'write');
  return (
    <PageSection>
      <PagedList
        aria-label="Permissions"
        columns={COLUMNS}
        query={list}
        errorTitle="Error loading permissions"
        rowKey={(row) => row.id}
        onRowClick={canWrite ? (row) => setEditing(row.id) : undefined}
        tools={
          canWrite && (
            <ToolbarItem>
              <Button onClick={() => setEditing('new')}>Add Permission</Button>
            </ToolbarItem>
          )
        }
        pager={{
          page: page.pageIndex + 1,
          pageSize: page.pageSize,
          pageSizes: PAGE_SIZES,
          onPage: (p) => update({ pageIndex: p - 1 || undefined }, true),
          onPageSize: (size) => update({ pageSize: size, pageIndex: undefined }, true),
        }}
      />
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
