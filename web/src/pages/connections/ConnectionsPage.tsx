import { Button, Label, PageSection } from '@patternfly/react-core';
import { useEffect } from 'react';
import { Link, useNavigate } from 'react-router';
import { errorMessage } from '../../api/errors';
import { useToast } from '../../app/toast';
import { useTopBar } from '../../app/topBar';
import { DataTable, type Column } from '../../components/DataTable';
import { RequireAccess } from '../../components/RequireAccess';
import { isUiSource, sourceLabel } from '../../lib/source';
import { TypeLabel } from './TypeIcon';
import { useConnectionsData } from './useConnectionsData';

export const CONNECTIONS_PATH = '/settings/connections';

type Row = NonNullable<ReturnType<typeof useConnectionsData>['list']['data']>[number];

const COLUMNS: Column<Row>[] = [
  {
    title: 'Name',
    cell: (c) => (
      <Link to={`${CONNECTIONS_PATH}/${c.id}`} onClick={(e) => e.stopPropagation()}>
        {c.name}
      </Link>
    ),
  },
  { title: 'Type', cell: (c) => <TypeLabel type={c.type} /> },
  { title: 'Namespace', cell: (c) => c.namespace },
  { title: 'Created By', cell: (c) => c.createdBy?.name ?? '' },
  {
    title: 'Source',
    cell: (c) => (
      <Label isCompact color={isUiSource(c.source) ? 'blue' : 'purple'}>
        {sourceLabel(c.source)}
      </Label>
    ),
  },
];

function Connections() {
  const { list } = useConnectionsData();
  const toast = useToast();
  const navigate = useNavigate();
  useTopBar('Connections', list.refetch, list.isFetching);

  // Spec part 2, 2.3: a failed list fetch is also a toast.
  useEffect(() => {
    if (list.error) toast.error(errorMessage(list.error));
  }, [list.error, toast]);

  return (
    <PageSection>
      <DataTable
        aria-label="Connections"
        columns={COLUMNS}
        query={list}
        errorTitle="Error loading connections"
        rowKey={(c) => c.id}
        isPaginated
        toolbar={<Button onClick={() => navigate(`${CONNECTIONS_PATH}/new`)}>Add Connection</Button>}
        onRowClick={(c) => navigate(`${CONNECTIONS_PATH}/${c.id}`)}
      />
    </PageSection>
  );
}

export default function ConnectionsPage() {
  return (
    <RequireAccess resource="connections" feature="settings.connections">
      <Connections />
    </RequireAccess>
  );
}
