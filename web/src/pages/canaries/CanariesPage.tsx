import { Button, Label, PageSection, Pagination, Toolbar, ToolbarContent, ToolbarItem } from '@patternfly/react-core';
import PlusIcon from '@patternfly/react-icons/dist/esm/icons/plus-icon';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { PAGE_SIZES, usePreference } from '../../app/preferences';
import { useSession } from '../../app/session';
import { useTopBar } from '../../app/topBar';
import { DateTime } from '../../components/DateTime';
import { LabelList } from '../../components/Labels';
import { RequireAccess } from '../../components/RequireAccess';
import { TableStateRow } from '../../components/TableStates';
import { sourceLabel } from '../../lib/source';
import { checkTypeLabels } from './checkTypes';
import { useCanariesData } from './useCanariesData';

const PER_PAGE_OPTIONS = PAGE_SIZES.map((n) => ({ title: String(n), value: n }));
const COLUMNS = ['Name', 'Source', 'Schedule', 'Checks', 'Labels', 'Updated'];

function Canaries() {
  const { list } = useCanariesData();
  const { authorizer } = useSession();
  const navigate = useNavigate();
  const [perPage, setPerPage] = usePreference('pageSize');
  const [page, setPage] = useState(1);
  useTopBar('Health Checks', list.refetch, list.isFetching);
  const all = list.data ?? [];
  const rows = all.slice((page - 1) * perPage, page * perPage);

  return (
    <PageSection>
      <Toolbar>
        <ToolbarContent>
          {authorizer.can('canaries', 'write') && (
            <ToolbarItem>
              <Button icon={<PlusIcon />} onClick={() => navigate('/settings/canaries/new')}>
                Add Health Check
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
      <Table aria-label="Health checks" variant="compact">
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
            errorTitle="Error loading health checks"
            isEmpty={all.length === 0}
          />
          {rows.map((row) => {
            const path = `/settings/canaries/${row.id}`;
            const labels = Object.entries(row.labels ?? {}).map(([k, v]) => `${k}:${v}`);
            return (
              <Tr key={row.id} isClickable onRowClick={() => navigate(path)} className="qd-clickable-row">
                <Td dataLabel="Name">
                  <Link to={path}>{row.name}</Link>{' '}
                  <Label isCompact color="blue">
                    {row.namespace}
                  </Label>
                </Td>
                <Td dataLabel="Source">{sourceLabel(row.source)}</Td>
                <Td dataLabel="Schedule">{typeof row.spec?.schedule === 'string' ? row.spec.schedule : ''}</Td>
                <Td dataLabel="Checks">
                  <LabelList items={checkTypeLabels(row.spec)} label={`Check types of ${row.name}`} />
                </Td>
                <Td dataLabel="Labels">
                  <LabelList items={labels} label={`Labels of ${row.name}`} />
                </Td>
                <Td dataLabel="Updated">
                  <DateTime value={row.updated_at} />
                </Td>
              </Tr>
            );
          })}
        </Tbody>
      </Table>
    </PageSection>
  );
}

/** Settings > Health Checks: the canaries, and the way to add one. */
export default function CanariesPage() {
  return (
    <RequireAccess resource="canaries" feature="settings.health">
      <Canaries />
    </RequireAccess>
  );
}
