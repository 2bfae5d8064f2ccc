import { Button, PageSection, ToolbarItem } from '@patternfly/react-core';
import { useState } from 'react';
import { Link } from 'react-router';
import { PAGE_SIZES } from '../../../app/preferences';
import { useSession } from '../../../app/session';
import { useTopBar } from '../../../app/topBar';
import { FilterItem } from '../../../components/FilterItem';
import type { Column } from '../../../components/ListTable';
import { PagedList, useListSearch } from '../../../components/PagedList';
import { RequireAccess } from '../../../components/RequireAccess';
import { SimpleSelect } from '../../../components/Selects';
import { compactAge } from '../../../lib/format';
import { ALL, withAll } from '../../../lib/searchChanges';
import { SeverityLabel, StatusLabel } from '../IncidentLabels';
import { INCIDENT_STATUSES, INCIDENT_TYPES, SEVERITIES, incidentPath, labelOf } from '../incidentModel';
import { CreateIncidentModal } from './CreateIncidentModal';
import { incidentsParams, useIncidentsData, type IncidentListRow } from './useIncidentsData';

function Incidents() {
  const { authorizer } = useSession();
  const [params, update] = useListSearch(incidentsParams);
  const { incidents, people, create } = useIncidentsData(params);
  const [creating, setCreating] = useState(false);
  useTopBar('Incidents', incidents.refetch, incidents.isFetching);
  const owners = withAll((people.data ?? []).map((p) => ({ value: p.id, label: p.name || (p.email ?? p.id) })));
  // Ages count to when the page was read.
  const now = incidents.dataUpdatedAt;
  const columns: Column<IncidentListRow>[] = [
    {
      title: 'Incident',
      cell: (incident) => (
        <>
          <Link to={incidentPath(incident.id)}>{incident.title}</Link> <small>{incident.incident_id}</small>
        </>
      ),
    },
    { title: 'Status', cell: (incident) => <StatusLabel status={incident.status} /> },
    { title: 'Severity', cell: (incident) => <SeverityLabel severity={incident.severity} /> },
    { title: 'Type', cell: (incident) => labelOf(INCIDENT_TYPES, incident.type) },
    { title: 'Commander', cell: (incident) => incident.commander?.name ?? incident.commander?.email ?? '' },
    { title: 'Age', cell: (incident) => compactAge(now - new Date(incident.created_at).getTime()) },
  ];

  return (
    <PageSection>
      <PagedList
        aria-label="Incidents"
        columns={columns}
        query={incidents}
        errorTitle="Failed to load incidents"
        rowKey={(incident) => incident.id}
        filters={
          <>
            <FilterItem label="Status">
              <SimpleSelect
                label="Status"
                options={withAll(INCIDENT_STATUSES)}
                value={params.status ?? ALL}
                onChange={(v) => update({ status: v })}
              />
            </FilterItem>
            <FilterItem label="Severity">
              <SimpleSelect
                label="Severity"
                options={withAll(SEVERITIES)}
                value={params.severity ?? ALL}
                onChange={(v) => update({ severity: v })}
              />
            </FilterItem>
            <FilterItem label="Type">
              <SimpleSelect
                label="Type"
                options={withAll(INCIDENT_TYPES)}
                value={params.type ?? ALL}
                onChange={(v) => update({ type: v })}
              />
            </FilterItem>
            <FilterItem label="Owner">
              <SimpleSelect label="Owner" options={owners} value={params.owner ?? ALL} onChange={(v) => update({ owner: v })} />
            </FilterItem>
          </>
        }
        tools={
          authorizer.can('incident', 'write') && (
            <ToolbarItem>
              <Button onClick={() => setCreating(true)}>Create incident</Button>
            </ToolbarItem>
          )
        }
        pager={{
          page: params.page,
          pageSize: params.pageSize,
          pageSizes: PAGE_SIZES,
          onPage: (page) => update({ page }, true),
          onPageSize: (pageSize) => update({ pageSize }),
        }}
      />
      {creating && <CreateIncidentModal create={create} people={people} onClose={() => setCreating(false)} />}
    </PageSection>
  );
}

/** Incidents, newest first; filters (status, severity, type, owner) and page in the URL. */
export default function IncidentsPage() {
  return (
    <RequireAccess resource="incident" feature="incidents">
      <Incidents />
    </RequireAccess>
  );
}
