import { Button, Label, PageSection, Pagination, Toolbar, ToolbarContent, ToolbarItem } from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { useState } from 'react';
import type { AccessScopeRow } from '../../api/types';
import { PAGE_SIZES, usePreference } from '../../app/preferences';
import { useSession } from '../../app/session';
import { useTopBar } from '../../app/topBar';
import { DateTime } from '../../components/DateTime';
import { CrdBadge, LabelList } from '../../components/Labels';
import { RequireAccess } from '../../components/RequireAccess';
import { TableStateRow } from '../../components/TableStates';
import { scopeCount } from '../../lib/accessScope';
import { AccessScopeModal } from './AccessScopeModal';
import { useAccessScopesData } from './useAccessScopesData';

const PER_PAGE_OPTIONS = PAGE_SIZES.map((n) => ({ title: String(n), value: n }));
const COLUMNS = ['Name', 'Subject', 'Resources', 'Scopes', 'Description', 'Created', 'Updated', 'Created By'];

function AccessScopes() {
  const { list } = useAccessScopesData();
  const { authorizer } = useSession();
  const [editing, setEditing] = useState<AccessScopeRow | 'new'>();
  useTopBar('Access Scopes', list.refetch, list.isFetching);
  const [perPage, setPerPage] = usePreference('pageSize');
  const [page, setPage] = useState(1);
  const all = list.data ?? [];
  const rows = all.slice((page - 1) * perPage, page * perPage);

  return (
    <PageSection>
      <Toolbar>
        <ToolbarContent>
          {authorizer.can('access_scopes', 'write') && (
            <ToolbarItem>
              <Button onClick={() => setEditing('new')}>Add Access Scope</Button>
            </ToolbarItem>
          )}
          <ToolbarItem variant="pagination" align={{ default: 'alignEnd' }}>
            <Pagination
              itemCount={all.length}
              page={page}
              perPage={perPage}
              perPageOptions={PER_PAGE_OPTIONS}
              isCompact
              onSetPage={(_e, p) => setPage(p)}
              onPerPageSelect={(_e, size, p) => (setPerPage(size), setPage(p))}
            />
          </ToolbarItem>
        </ToolbarContent>
      </Toolbar>
      <Table aria-label="Access scopes" variant="compact">
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
            errorTitle="Error loading access scopes"
            isEmpty={all.length === 0}
          />
          {rows.map((row) => (
            <Tr key={row.id} isClickable onRowClick={() => setEditing(row)} className="qd-clickable-row">
              <Td dataLabel="Name">
                {row.name}{' '}
                <Label isCompact color="blue">
                  {row.namespace}
                </Label>
              </Td>
              <Td dataLabel="Subject">{row.person?.email ?? row.team?.name ?? '-'}</Td>
              <Td dataLabel="Resources">
                <LabelList items={row.resources} label={`Resources of ${row.name}`} />
              </Td>
              <Td dataLabel="Scopes">{scopeCount(row.scopes.length)}</Td>
              <Td dataLabel="Description">{row.description}</Td>
              <Td dataLabel="Created">
                <DateTime value={row.created_at} />
              </Td>
              <Td dataLabel="Updated">
                <DateTime value={row.updated_at} />
              </Td>
              <Td dataLabel="Created By">
                {row.created_by?.name ?? ''} <CrdBadge source={row.source} />
              </Td>
            </Tr>
          ))}
        </Tbody>
      </Table>
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
