import { Button, Label, PageSection } from '@patternfly/react-core';
import PlusIcon from '@patternfly/react-icons/dist/esm/icons/plus-icon';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import type { IntegrationRow } from './useIntegrationsData';
import { useSession } from '../../app/session';
import { useTopBar } from '../../app/topBar';
import { DataTable, type Column } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { RequireAccess } from '../../components/RequireAccess';
import { integrationPath, jobStatusColor, typeLabel } from '../../lib/integrations';
import { AddIntegrationModal } from './AddIntegrationModal';
import { ScrapeNowButton, useCanScrape } from './ScrapeNowButton';
import { useIntegrationsData } from './useIntegrationsData';

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

const COLUMNS: Column<IntegrationRow>[] = [
  { title: 'Name', cell: (row) => <NameCell row={row} /> },
  { title: 'Type', cell: (row) => typeLabel(row.integration_type, row.type) },
  { title: 'Source', cell: (row) => row.source },
  {
    title: 'Last Run',
    cell: (row) =>
      row.job_status && (
        <>
          <Label isCompact color={jobStatusColor(row.job_status)}>
            {row.job_status}
          </Label>{' '}
          <DateTime value={row.job_time_start} />
        </>
      ),
  },
  { title: 'Created By', cell: (row) => row.created_by?.name ?? '' },
  { title: 'Created', cell: (row) => <DateTime value={row.created_at} /> },
  { title: 'Updated', cell: (row) => <DateTime value={row.updated_at} /> },
];

function Integrations() {
  const { list } = useIntegrationsData();
  const { authorizer } = useSession();
  const navigate = useNavigate();
  const [adding, setAdding] = useState(false);
  const canScrape = useCanScrape();
  useTopBar('Integrations', list.refetch, list.isFetching);

  return (
    <PageSection>
      <DataTable
        aria-label="Integrations"
        columns={COLUMNS}
        query={list}
        errorTitle="Error loading integrations"
        rowKey={(row) => `${row.integration_type}-${row.id}`}
        isPaginated
        isRowClickable={(row) => Boolean(integrationPath(row))}
        onRowClick={(row) => {
          const path = integrationPath(row);
          if (path) navigate(path);
        }}
        actions={canScrape ? (row) => row.integration_type === 'scraper' && !row.deleted_at && <ScrapeNowButton id={row.id} /> : undefined}
        toolbar={
          authorizer.can('integrations', 'write') && (
            <Button icon={<PlusIcon />} onClick={() => setAdding(true)}>
              Add Integration
            </Button>
          )
        }
      />
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
