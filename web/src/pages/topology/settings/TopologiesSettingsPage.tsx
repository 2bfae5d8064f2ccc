import { PageSection } from '@patternfly/react-core';
import { useNavigate } from 'react-router';
import { useTopBar } from '../../../app/topBar';
import { DateTime } from '../../../components/DateTime';
import type { Column } from '../../../components/ListTable';
import { PagedList } from '../../../components/PagedList';
import { RequireAccess } from '../../../components/RequireAccess';
import { LastRunCell, namedColumns, useNamedList } from '../../integrations/lastRun';
import { topologySettingsPath } from './paths';
import { useTopologiesSettingsData, type TopologyRow } from './useTopologiesSettingsData';

function Topologies() {
  const { params, search, pager } = useNamedList('Search topologies by name');
  const { list } = useTopologiesSettingsData(params);
  const navigate = useNavigate();
  useTopBar('Topology', list.refetch, list.isFetching);
  const named = namedColumns<TopologyRow>(topologySettingsPath);
  const columns: Column<TopologyRow>[] = [
    named.name,
    { title: 'Schedule', cell: (row) => row.schedule || 'Default' },
    { title: 'Last Run', cell: (row) => <LastRunCell run={list.data?.runs.get(row.id)} /> },
    named.source,
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
        tools={search}
        pager={pager}
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
