import { Button, Label, PageSection } from '@patternfly/react-core';
import { useState } from 'react';
import { useSession } from '../../app/session';
import { useTopBar } from '../../app/topBar';
import { DataTable, type Column } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { CrdBadge, LabelList } from '../../components/Labels';
import { RequireAccess } from '../../components/RequireAccess';
import { scopeCount } from '../../lib/accessScope';
import { AccessScopeModal } from './AccessScopeModal';
import { useAccessScopesData, type AccessScopeRow } from './useAccessScopesData';

const COLUMNS: Column<AccessScopeRow>[] = [
  {
    title: 'Name',
    cell: (row) => (
      <>
        {row.name}{' '}
        <Label isCompact color="blue">
          {row.namespace}
        </Label>
      </>
    ),
  },
  // Only admins and the person themselves get a person's email; others see the name.
  { title: 'Subject', cell: (row) => (row.person ? (row.person.email ?? row.person.name) : (row.team?.name ?? '-')) },
  { title: 'Resources', cell: (row) => <LabelList items={row.resources} label={`Resources of ${row.name}`} /> },
  { title: 'Scopes', cell: (row) => scopeCount(row.scopes.length) },
  { title: 'Description', cell: (row) => row.description },
  { title: 'Created', cell: (row) => <DateTime value={row.created_at} /> },
  { title: 'Updated', cell: (row) => <DateTime value={row.updated_at} /> },
  {
    title: 'Created By',
    cell: (row) => (
      <>
        {row.created_by?.name ?? ''} <CrdBadge source={row.source} />
      </>
    ),
  },
];

function AccessScopes() {
  const { list } = useAccessScopesData();
  const { authorizer } = useSession();
  const [editing, setEditing] = useState<AccessScopeRow | 'new'>();
  useTopBar('Access Scopes', list.refetch, list.isFetching);

  return (
    <PageSection>
      <DataTable
        aria-label="Access scopes"
        columns={COLUMNS}
        query={list}
        errorTitle="Error loading access scopes"
        rowKey={(row) => row.id}
        isPaginated
        onRowClick={(row) => setEditing(row)}
        toolbar={authorizer.can('access_scopes', 'write') && <Button onClick={() => setEditing('new')}>Add Access Scope</Button>}
      />
      {editing && <AccessScopeModal row={editing === 'new' ? undefined : editing} onClose={() => setEditing(undefined)} />}
    </PageSection>
  );
}

export default function AccessScopesPage() {
  return (
    <RequireAccess resource="access_scopes">
      <AccessScopes />
    </RequireAccess>
  );
}
