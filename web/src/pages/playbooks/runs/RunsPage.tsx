import { PageSection, Toolbar, ToolbarContent, ToolbarGroup, ToolbarItem } from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { useMemo } from 'react';
import { Link } from 'react-router';
import { useTopBar } from '../../../app/topBar';
import { PAGE_SIZES } from '../../../app/preferences';
import { DateTime } from '../../../components/DateTime';
import { FilterItem } from '../../../components/FilterItem';
import { PagedFooter } from '../../../components/PagedFooter';
import { RequireAccess } from '../../../components/RequireAccess';
import { SimpleSelect } from '../../../components/Selects';
import { TableStateRow } from '../../../components/TableStates';
import { TimeRangePicker } from '../../../components/timerange/TimeRangePicker';
import type { TimeRange } from '../../../components/timerange/timeRange';
import { useTimeRangeParams } from '../../../components/timerange/useTimeRangeParams';
import { withSearchChanges } from '../../../lib/searchChanges';
import { PlaybookIcon } from '../PlaybookIcon';
import { runPath } from '../paths';
import { RunTarget } from './RunTarget';
import { RUN_STATUSES, StatusLabel, elapsed, statusText } from './runStatus';
import { runsParams, useRunsData } from './useRunsData';
import { useLiveSearchParams } from '../../../app/useLiveSearchParams';

const DEFAULT_RANGE: TimeRange = { type: 'relative', range: 'now-7d' };
const ALL = '';
const STATUS_OPTIONS = [{ value: ALL, label: 'All' }, ...RUN_STATUSES.map((s) => ({ value: s, label: statusText(s) }))];
const COLUMNS = ['Status', 'Playbook', 'Target', 'Started By', 'Start Time', 'Duration'];

function Runs() {
  const [search, setSearch] = useLiveSearchParams();
  const params = useMemo(() => runsParams(search), [search]);
  const [range, setRange] = useTimeRangeParams(DEFAULT_RANGE, ['page']);
  const { runs, playbooks } = useRunsData(params, range);
  useTopBar('Playbook Runs', runs.refetch, runs.isFetching);
  const update = (changes: Record<string, string | number | undefined>, paging = false) =>
    setSearch((current) => withSearchChanges(current, changes, paging));
  const playbookOptions = [{ value: ALL, label: 'All' }, ...(playbooks.data ?? []).map((p) => ({ value: p.id, label: p.title }))];
  const { rows = [], total = 0 } = runs.data ?? {};

  return (
    <PageSection>
      <Toolbar>
        <ToolbarContent>
          <ToolbarGroup variant="filter-group" role="group" aria-label="Filters">
            <FilterItem label="Playbook">
              <SimpleSelect
                label="Playbook"
                options={playbookOptions}
                value={params.playbook ?? ALL}
                onChange={(v) => update({ playbook: v })}
              />
            </FilterItem>
            <FilterItem label="Status">
              <SimpleSelect label="Status" options={STATUS_OPTIONS} value={params.status ?? ALL} onChange={(v) => update({ status: v })} />
            </FilterItem>
          </ToolbarGroup>
          <ToolbarItem>
            <TimeRangePicker value={range} onChange={setRange} />
          </ToolbarItem>
          <PagedFooter
            label="Runs pagination"
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
      <Table aria-label="Playbook runs" variant="compact">
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
            isLoading={runs.isLoading}
            error={runs.error}
            errorTitle="Failed to load playbook runs"
            isEmpty={rows.length === 0}
          />
          {rows.map((run) => (
            <Tr key={run.id}>
              <Td dataLabel="Status">
                <StatusLabel status={run.status} />
              </Td>
              <Td dataLabel="Playbook">
                <PlaybookIcon icon={run.playbook?.icon} /> <Link to={runPath(run.id)}>{run.playbook?.title ?? run.playbook_id}</Link>
              </Td>
              <Td dataLabel="Target">
                <RunTarget run={run} />
              </Td>
              <Td dataLabel="Started By">{run.created_by?.name ?? run.created_by?.email ?? ''}</Td>
              <Td dataLabel="Start Time">
                <DateTime value={run.start_time ?? run.created_at} />
              </Td>
              <Td dataLabel="Duration">{elapsed(run.start_time, run.end_time)}</Td>
            </Tr>
          ))}
        </Tbody>
      </Table>
    </PageSection>
  );
}

/** Playbook runs, newest first; filters (playbook, status, time range) and page in the URL. */
export default function RunsPage() {
  return (
    <RequireAccess resource="playbook_runs" feature="playbooks">
      <Runs />
    </RequireAccess>
  );
}
