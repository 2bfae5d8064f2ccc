import { PageSection, Toolbar, ToolbarContent, ToolbarGroup, ToolbarItem } from '@patternfly/react-core';
import { useMemo } from 'react';
import { useTopBar } from '../../app/topBar';
import { DurationFilter } from '../../components/DurationFilter';
import { FilterItem } from '../../components/FilterItem';
import { RequireAccess } from '../../components/RequireAccess';
import { SimpleSelect } from '../../components/Selects';
import { TimeRangePicker } from '../../components/timerange/TimeRangePicker';
import { useTimeRangeParams } from '../../components/timerange/useTimeRangeParams';
import { JobHistoryTable } from './JobHistoryTable';
import { StatusFilter } from './StatusFilter';
import { DEFAULT_TIME_RANGE, FILTER_PARAMS, RESOURCE_TYPES, formatStatusFilter, jobFiltersFromParams } from './jobFilters';
import { useJobHistory, useJobHistoryNames } from './useJobHistoryData';
import { useLiveSearchParams } from '../../app/useLiveSearchParams';

const ALL = '';
const RESOURCE_TYPE_OPTIONS = [{ value: ALL, label: 'All' }, ...RESOURCE_TYPES.map((t) => ({ value: t, label: t }))];

function JobHistory() {
  const [params, setParams] = useLiveSearchParams();
  const filters = useMemo(() => jobFiltersFromParams(params), [params]);
  const [range, setRange] = useTimeRangeParams(DEFAULT_TIME_RANGE, ['pageIndex']);
  const list = useJobHistory(filters, range);
  const names = useJobHistoryNames();
  useTopBar('Job History', list.refetch, list.isFetching);

  /** Writes URL parameters; any change but paging goes back to the first page. */
  const update = (changes: Record<string, string | number | undefined>, paging = false) =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      for (const [key, value] of Object.entries(changes)) {
        if (value === undefined) next.delete(key);
        else next.set(key, String(value));
      }
      if (!paging) next.delete('pageIndex');
      return next;
    });
  const setFilter = <K extends keyof typeof FILTER_PARAMS>(key: K, value: string | number | undefined) =>
    update({ [FILTER_PARAMS[key]]: value });

  const nameOptions = [{ value: ALL, label: 'All' }, ...(names.data ?? []).map((n) => ({ value: n, label: n }))];
  const { rows = [], total = 0 } = list.data ?? {};

  return (
    <PageSection>
      <Toolbar>
        <ToolbarContent>
          <ToolbarGroup variant="filter-group" role="group" aria-label="Filters">
            <FilterItem label="Name">
              <SimpleSelect
                label="Name"
                options={nameOptions}
                value={filters.name ?? ALL}
                onChange={(v) => setFilter('name', v || undefined)}
              />
            </FilterItem>
            <FilterItem label="Resource Type">
              <SimpleSelect
                label="Resource Type"
                options={RESOURCE_TYPE_OPTIONS}
                value={filters.resourceType ?? ALL}
                onChange={(v) => setFilter('resourceType', v || undefined)}
              />
            </FilterItem>
            <FilterItem label="Status">
              <StatusFilter value={filters.status} onChange={(status) => setFilter('status', formatStatusFilter(status))} />
            </FilterItem>
            <FilterItem label="Duration">
              <DurationFilter value={filters.durationMs} onChange={(ms) => setFilter('durationMs', ms)} />
            </FilterItem>
          </ToolbarGroup>
          <ToolbarItem align={{ default: 'alignEnd' }}>
            <TimeRangePicker value={range} onChange={setRange} />
          </ToolbarItem>
        </ToolbarContent>
      </Toolbar>
      <JobHistoryTable
        label="Job history"
        rows={rows}
        total={total}
        isLoading={list.isLoading}
        error={list.error}
        sort={filters.sort}
        onSort={(sort) => update({ sortBy: sort.by, sortDesc: String(sort.desc) })}
        pageIndex={filters.pageIndex}
        pageSize={filters.pageSize}
        onPage={(pageIndex, pageSize) => update({ pageIndex, pageSize }, true)}
      />
    </PageSection>
  );
}

export default function JobHistoryPage() {
  return (
    <RequireAccess resource="database" feature="settings.job_history">
      <JobHistory />
    </RequireAccess>
  );
}
