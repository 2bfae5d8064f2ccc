import { Label, PageSection, Toolbar, ToolbarContent, ToolbarItem } from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { Link, useNavigate } from 'react-router';
import { PAGE_SIZES, usePreference } from '../../../app/preferences';
import { useTopBar } from '../../../app/topBar';
import { DateTime } from '../../../components/DateTime';
import { CrdBadge } from '../../../components/Labels';
import { PagedFooter } from '../../../components/PagedFooter';
import { RequireAccess } from '../../../components/RequireAccess';
import { SearchBox } from '../../../components/SearchBox';
import { TableStateRow } from '../../../components/TableStates';
import { LastRunCell, useNamedListParams } from '../../integrations/lastRun';
import { topologySettingsPath } from './paths';
import { useTopologiesSettingsData } from './useTopologiesSettingsData';

const COLUMNS = ['Name', 'Schedule', 'Last Run', 'Source', 'Created', 'Updated'];

function Topologies() {
  const [params, update] = useNamedListParams();
  const { list, pageSize } = useTopologiesSettingsData(params);
  const [, setPageSize] = usePreference('pageSize');
  const navigate = useNavigate();
  useTopBar('Topology', list.refetch, list.isFetching);
  const rows = list.data?.rows ?? [];

  return (
    <PageSection>
      <Toolbar>
        <ToolbarContent>
          <ToolbarItem>
            <SearchBox
              label="Search topologies by name"
              placeholder="Search by name"
              value={params.search}
              onChange={(search) => update({ search })}
            />
          </ToolbarItem>
          <PagedFooter
            placement="toolbar"
            label="Topologies pagination"
            total={list.data?.total ?? 0}
            page={params.page}
            pageSize={pageSize}
            pageSizes={PAGE_SIZES}
            onPage={(page) => update({ page })}
            onPageSize={(size) => (setPageSize(size), update({ page: 1 }))}
          />
        </ToolbarContent>
      </Toolbar>
      <Table aria-label="Topologies" variant="compact">
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
            errorTitle="Error loading topologies"
            isEmpty={rows.length === 0}
          />
          {rows.map((row) => (
            <Tr key={row.id} isClickable onRowClick={() => navigate(topologySettingsPath(row.id))}>
              <Td dataLabel="Name">
                <Link to={topologySettingsPath(row.id)} onClick={(e) => e.stopPropagation()}>
                  {row.name}
                </Link>{' '}
                <Label isCompact>{row.namespace}</Label>
              </Td>
              <Td dataLabel="Schedule">{row.schedule || 'Default'}</Td>
              <Td dataLabel="Last Run">
                <LastRunCell run={list.data?.runs.get(row.id)} />
              </Td>
              <Td dataLabel="Source">{row.source === 'KubernetesCRD' ? <CrdBadge source={row.source} /> : row.source}</Td>
              <Td dataLabel="Created">
                <DateTime value={row.created_at} />
              </Td>
              <Td dataLabel="Updated">
                <DateTime value={row.updated_at} />
              </Td>
            </Tr>
          ))}
        </Tbody>
      </Table>
    </PageSection>
  );
}

/** The topologies: one page of them with each one's last run, linking to each one's editor. */
export default function TopologiesSettingsPage() {
  return (
    <RequireAccess resource="topologies" feature="settings.topology">
      <Topologies />
    </RequireAccess>
  );
}
