import { Label, PageSection, ToolbarItem } from '@patternfly/react-core';
import { Link, useNavigate } from 'react-router';
import { PAGE_SIZES, usePreference } from '../../../app/preferences';
import { useTopBar } from '../../../app/topBar';
import { DateTime } from '../../../components/DateTime';
import { CrdBadge } from '../../../components/Labels';
import type { Column } from '../../../components/ListTable';
import { PagedList, useListSearch } from '../../../components/PagedList';
import { RequireAccess } from '../../../components/RequireAccess';
import { SearchBox } from '../../../components/SearchBox';
import { parseScrapersParams } from '../../catalog/scrapers/scraperList';
import { LastRunCell } from '../../integrations/lastRun';
import { topologySettingsPath } from './paths';
import { useTopologiesSettingsData, type TopologyRow } from './useTopologiesSettingsData';

function Topologies() {
  const [params, update] = useListSearch(parseScrapersParams);
  const { list, pageSize } = useTopologiesSettingsData(params);
  const [, setPageSize] = usePreference('pageSize');
  const navigate = useNavigate();
  useTopBar('Topology', list.refetch, list.isFetching);
  const columns: Column<TopologyRow>[] = [
    {
      title: 'Name',
      cell: (row) => (
        <>
          <Link to={topologySettingsPath(row.id)} onClick={(e) => e.stopPropagation()}>
            {row.name}
          </Link>{' '}
          <Label isCompact>{row.namespace}</Label>
        </>
      ),
    },
    { title: 'Schedule', cell: (row) => row.schedule || 'Default' },
    { title: 'Last Run', cell: (row) => <LastRunCell run={list.data?.runs.get(row.id)} /> },
    { title: 'Source', cell: (row) => (row.source === 'KubernetesCRD' ? <CrdBadge source={row.source} /> : row.source) },
    { title: 'Created', cell: (row) => <DateTime value={row.created_at} /> },
    { title: 'Updated', cell: (row) => <DateTime value={row.updated_at} /> },
  ];

  return (
    <PageSection>
      <PagedList
        aria-label="Topologies"
        columns={columns}
        query={list}
        errorTitle="Error loading topologies"
        rowKey={(row) => row.id}
        onRowClick={(row) => navigate(topologySettingsPath(row.id))}
        tools={
          <ToolbarItem>
            <SearchBox
              label="Search topologies by name"
              placeholder="Search by name"
              value={params.search}
              onChange={(search) => update({ search })}
            />
          </ToolbarItem>
        }
        pager={{
          page: params.page,
          pageSize,
          pageSizes: PAGE_SIZES,
          onPage: (page) => update({ page }, true),
          onPageSize: (size) => (setPageSize(size), update({})),
        }}
      />
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
