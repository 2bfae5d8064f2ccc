import { Button, PageSection, Toolbar, ToolbarContent, ToolbarGroup, ToolbarItem } from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { PAGE_SIZES } from '../../../app/preferences';
import { useSession } from '../../../app/session';
import { useTopBar } from '../../../app/topBar';
import { FilterItem } from '../../../components/FilterItem';
import { PagedFooter } from '../../../components/PagedFooter';
import { RequireAccess } from '../../../components/RequireAccess';
import { SimpleSelect } from '../../../components/Selects';
import { TableStateRow } from '../../../components/TableStates';
import { compactAge } from '../../../lib/format';
import { ALL, withAll, withFilterChanges } from '../../../lib/searchChanges';
import { SeverityLabel, StatusLabel } from '../IncidentLabels';
import { INCIDENT_STATUSES, INCIDENT_TYPES, SEVERITIES, incidentPath, labelOf } from '../incidentModel';
import { CreateIncidentModal } from './CreateIncidentModal';
import { incidentsParams, useIncidentsData } from './useIncidentsData';

const COLUMNS = ['Incident', 'Status', 'Severity', 'Type', 'Commander', 'Age'];

function Incidents() {
  const { authorizer } = useSession();
  const [search, setSearch] = useSearchParams();
  const params = useMemo(() => incidentsParams(search), [search]);
  const { incidents, people, create } = useIncidentsData(params);
  const [creating, setCreating] = useState(false);
  useTopBar('Incidents', incidents.refetch, incidents.isFetching);
  const update = (changes: Record<string, string | number | undefined>, paging = false) =>
    setSearch((current) => withFilterChanges(current, changes, paging));
  const owners = withAll((people.data ?? []).map((p) => ({ value: p.id, label: p.name || (p.email ?? p.id) })));
  const { rows = [], total = 0 } = incidents.data ?? {};
  // Ages count to when the page was read.
  const now = incidents.dataUpdatedAt;

  return (
    <PageSection>
      <Toolbar>
        <ToolbarContent>
          <ToolbarGroup variant="filter-group" role="group" aria-label="Filters">
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
          </ToolbarGroup>
          {authorizer.can('incident', 'write') && (
            <ToolbarItem>
              <Button onClick={() => setCreating(true)}>Create incident</Button>
            </ToolbarItem>
          )}
          <PagedFooter
            label="Incidents pagination"
            total={total}
            page={params.page}
            pageSize={params.pageSize}
            pageSizes={PAGE_SIZES}
            onPage={(page) => update({ page }, true)}
            onPageSize={(pageSize) => update({ pageSize })}
            placement="toolbar"
          />
        </ToolbarContent>
      </Toolbar>
      <Table aria-label="Incidents" variant="compact">
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
            isLoading={incidents.isLoading}
            error={incidents.error}
            errorTitle="Failed to load incidents"
            isEmpty={rows.length === 0}
          />
          {rows.map((incident) => (
            <Tr key={incident.id}>
              <Td dataLabel="Incident">
                <Link to={incidentPath(incident.id)}>{incident.title}</Link> <small>{incident.incident_id}</small>
              </Td>
              <Td dataLabel="Status">
                <StatusLabel status={incident.status} />
              </Td>
              <Td dataLabel="Severity">
                <SeverityLabel severity={incident.severity} />
              </Td>
              <Td dataLabel="Type">{labelOf(INCIDENT_TYPES, incident.type)}</Td>
              <Td dataLabel="Commander">{incident.commander?.name ?? incident.commander?.email ?? ''}</Td>
              <Td dataLabel="Age">{compactAge(now - new Date(incident.created_at).getTime())}</Td>
            </Tr>
          ))}
        </Tbody>
      </Table>
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
