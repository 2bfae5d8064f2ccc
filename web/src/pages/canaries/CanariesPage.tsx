import { Button, Label, PageSection } from '@patternfly/react-core';
import PlusIcon from '@patternfly/react-icons/dist/esm/icons/plus-icon';
import { Link, useNavigate } from 'react-router';
import { useSession } from '../../app/session';
import { useTopBar } from '../../app/topBar';
import { DataTable, type Column } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { LabelList } from '../../components/Labels';
import { RequireAccess } from '../../components/RequireAccess';
import { sourceLabel } from '../../lib/source';
import { checkTypeLabels } from './checkTypes';
import { useCanariesData, type CanaryListRow } from './useCanariesData';

const canaryPath = (row: CanaryListRow) => `/settings/canaries/${row.id}`;

const COLUMNS: Column<CanaryListRow>[] = [
  {
    title: 'Name',
    cell: (row) => (
      <>
        <Link to={canaryPath(row)}>{row.name}</Link>{' '}
        <Label isCompact color="blue">
          {row.namespace}
        </Label>
      </>
    ),
  },
  { title: 'Source', cell: (row) => sourceLabel(row.source) },
  { title: 'Schedule', cell: (row) => (typeof row.spec?.schedule === 'string' ? row.spec.schedule : '') },
  { title: 'Checks', cell: (row) => <LabelList items={checkTypeLabels(row.spec)} label={`Check types of ${row.name}`} /> },
  {
    title: 'Labels',
    cell: (row) => <LabelList items={Object.entries(row.labels ?? {}).map(([k, v]) => `${k}:${v}`)} label={`Labels of ${row.name}`} />,
  },
  { title: 'Created By', cell: (row) => row.created_by?.name ?? '' },
  { title: 'Updated', cell: (row) => <DateTime value={row.updated_at} /> },
];

function Canaries() {
  const { list } = useCanariesData();
  const { authorizer } = useSession();
  const navigate = useNavigate();
  useTopBar('Health Checks', list.refetch, list.isFetching);

  return (
    <PageSection>
      <DataTable
        aria-label="Health checks"
        columns={COLUMNS}
        query={list}
        errorTitle="Error loading health checks"
        rowKey={(row) => row.id}
        isPaginated
        onRowClick={(row) => navigate(canaryPath(row))}
        toolbar={
          authorizer.can('canaries', 'write') && (
            <Button icon={<PlusIcon />} onClick={() => navigate('/settings/canaries/new')}>
              Add Health Check
            </Button>
          )
        }
      />
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
