import { Button, Label, PageSection, Pagination, Toolbar, ToolbarContent, ToolbarItem } from '@patternfly/react-core';
import PlusIcon from '@patternfly/react-icons/dist/esm/icons/plus-icon';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import type { IntegrationRow } from '../../api/types';
import { PAGE_SIZES, usePreference } from '../../app/preferences';
import { useSession } from '../../app/session';
import { useTopBar } from '../../app/topBar';
import { DateTime } from '../../components/DateTime';
import { RequireAccess } from '../../components/RequireAccess';
import { TableStateRow } from '../../components/TableStates';
import { integrationPath, jobStatusColor, typeLabel } from '../../lib/integrations';
import { AddIntegrationModal } from './AddIntegrationModal';
import { useIntegrationsData } from './useIntegrationsData';

const PER_PAGE_OPTIONS = PAGE_SIZES.map((n) => ({ title: String(n), value: n }));
const COLUMNS = ['Name', 'Type', 'Source', 'Last Run', 'Created By', 'Created', 'Updated'];

function NameCell({ row }: { row: IntegrationRow }) {
  const path = integrationPath(row);
  return (
    <>
      {path ? <Link to={path}>{row.name}</Link> : row.name}{' '}
      {row.namespace && (
        <Label isCompact color="blue">
          {row.namespace}
        </Label>
      )}{' '}
      {row.deleted_at && (
        <Label isCompact color="red">
          Deleted
        </Label>
      )}
    </>
  );
}

function Integrations() {
  const { list } = useIntegrationsData();
  const { authorizer } = useSession();
  const navigate = useNavigate();
  const [adding, setAdding] = useState(false);
  const [perPage, setPerPage] = usePreference('pageSize');
  const [page, setPage] = useState(1);
  useTopBar('Integrations', list.refetch, list.isFetching);
  const all = list.data ?? [];
  const rows = all.slice((page - 1) * perPage, page * perPage);

  return (
    <PageSection>
      <Toolbar>
        <ToolbarContent>
          {authorizer.can('integrations', 'write') && (
            <ToolbarItem>
              <Button icon={<PlusIcon />} onClick={() => setAdding(true)}>
                Add Integration
              </Button>
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
      <Table aria-label="Integrations" variant="compact">
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
            errorTitle="Error loading integrations"
            isEmpty={all.length === 0}
          />
          {rows.map((row) => {
            const path = integrationPath(row);
            return (
              <Tr
                key={`${row.integration_type}-${row.id}`}
                isClickable={Boolean(path)}
                onRowClick={path ? () => navigate(path) : undefined}
                className={path ? 'qd-clickable-row' : undefined}
              >
                <Td dataLabel="Name">
                  <NameCell row={row} />
                </Td>
                <Td dataLabel="Type">{typeLabel(row.integration_type, row.type)}</Td>
                <Td dataLabel="Source">{row.source}</Td>
                <Td dataLabel="Last Run">
                  {row.job_status && (
                    <>
                      <Label isCompact color={jobStatusColor(row.job_status)}>
                        {row.job_status}
                      </Label>{' '}
                      <DateTime value={row.job_time_start} />
                    </>
                  )}
                </Td>
                <Td dataLabel="Created By">{row.created_by?.name ?? ''}</Td>
                <Td dataLabel="Created">
                  <DateTime value={row.created_at} />
                </Td>
                <Td dataLabel="Updated">
                  <DateTime value={row.updated_at} />
                </Td>
              </Tr>
            );
          })}
        </Tbody>
      </Table>
      {adding && <AddIntegrationModal onClose={() => setAdding(false)} />}
    </PageSection>
  );
}

export default function IntegrationsPage() {
  return (
    <RequireAccess resource="integrations" feature="settings.integrations">
      <Integrations />
    </RequireAccess>
  );
}
