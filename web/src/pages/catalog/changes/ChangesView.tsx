import { Checkbox, Toolbar, ToolbarContent, ToolbarGroup, ToolbarItem } from '@patternfly/react-core';
import { useCallback, useMemo } from 'react';
import type { Schemas } from '../../../api/client';
import { usePreference } from '../../../app/preferences';
import { FilterItem, MultiSelectFilter } from '../../../components/FilterItem';
import { PagedFooter } from '../../../components/PagedFooter';
import { SimpleSelect } from '../../../components/Selects';
import { SearchBox } from '../../../components/SearchBox';
import { SortableTable, type SortableColumn } from '../../../components/SortableTable';
import { TimeRangePicker } from '../../../components/timerange/TimeRangePicker';
import { useTimeRangeParams } from '../../../components/timerange/useTimeRangeParams';
import { compactAge } from '../../../lib/format';
import { ConfigLink } from '../shared/ConfigLink';
import { ChangeDetails } from './ChangeDetails';
import {
  DEFAULT_TIME_RANGE,
  MAX_DEPTH,
  PAGE_SIZES,
  RECURSIVE,
  SEVERITIES,
  badTags,
  parseChangesParams,
  withChangesParams,
  type ChangesParams,
  type SortColumn,
} from './changesParams';
import { useChangeChoices, useChanges } from './useChangesData';
import { useLiveSearchParams } from '../../../app/useLiveSearchParams';
import './changes.css';

type ChangeRow = Schemas['ChangeRow'];

const SEVERITY_OPTIONS = SEVERITIES.map((s) => ({ value: s, label: s }));
const RECURSIVE_OPTIONS = RECURSIVE.map((r) => ({ value: r, label: r === 'none' ? 'This item only' : r }));
const DEPTH_OPTIONS = Array.from({ length: MAX_DEPTH }, (_, i) => ({ value: String(i + 1), label: String(i + 1) }));

/** The columns, ages counted to `now`. */
const columnsAt = (now: number): SortableColumn<ChangeRow, SortColumn>[] => [
  { title: 'Config', sortBy: 'name', cell: (r) => <ConfigLink id={r.config_id} name={r.name} type={r.type} /> },
  { title: 'Type', sortBy: 'type', cell: (r) => r.type },
  { title: 'Change', sortBy: 'change_type', cell: (r) => r.change_type },
  { title: 'Summary', sortBy: 'summary', cell: (r) => r.summary },
  { title: 'Severity', sortBy: 'severity', cell: (r) => r.severity },
  { title: 'Source', sortBy: 'source', cell: (r) => r.source },
  { title: 'Created By', cell: (r) => r.external_created_by ?? r.created_by },
  {
    title: 'Age',
    sortBy: 'created_at',
    cell: (r) => (
      <time dateTime={r.created_at} title={r.created_at}>
        {compactAge(now - Date.parse(r.created_at))}
      </time>
    ),
  },
];

/** The changes table with its filters and details; on an item's page
 * `configId` limits it to that item (and, with recursive, its relatives).
 * Every filter, the sort, the page and the open change live in the URL. */
export function ChangesView({ configId }: { configId?: string }) {
  const [search, setSearch] = useLiveSearchParams();
  const text = search.toString();
  const params = useMemo(() => parseChangesParams(new URLSearchParams(text)), [text]);
  const update = useCallback(
    (patch: Partial<ChangesParams>) => setSearch((current) => withChangesParams(current, patch), { replace: !patch.change }),
    [setSearch],
  );
  const [range, setRange] = useTimeRangeParams(DEFAULT_TIME_RANGE, ['page']);
  const [preferredSize] = usePreference('pageSize');
  const [showDeleted] = usePreference('showDeleted');
  const pageSize = params.pageSize ?? preferredSize;
  const includeDeleted = params.includeDeleted ?? showDeleted;
  const changes = useChanges(params, { configId, range, includeDeleted, pageSize });
  const choices = useChangeChoices();

  const rows = changes.data?.changes ?? [];
  const total = changes.data?.total ?? 0;
  const capped = changes.data?.total_capped ?? false;
  // Ages count to when the page was read.
  const now = changes.dataUpdatedAt;
  const columns = useMemo(() => columnsAt(now), [now]);
  const typeOptions = (values: readonly string[] | undefined) => (values ?? []).map((v) => ({ value: v, label: v }));
  const wrongTags = badTags(params.tags);
  const openRow = rows.find((r) => r.id === params.change);

  return (
    <>
      <Toolbar>
        <ToolbarContent>
          <ToolbarGroup variant="filter-group" role="group" aria-label="Filters">
            <MultiSelectFilter
              label="Config type"
              isLabelHidden
              options={typeOptions(choices.data?.configTypes)}
              values={params.configTypes}
              onChange={(configTypes) => update({ configTypes })}
            />
            <MultiSelectFilter
              label="Change type"
              isLabelHidden
              options={typeOptions(choices.data?.changeTypes)}
              values={params.changeTypes}
              onChange={(changeTypes) => update({ changeTypes })}
            />
            <MultiSelectFilter
              label="Severity"
              isLabelHidden
              options={SEVERITY_OPTIONS}
              values={params.severities}
              onChange={(severities) => update({ severities })}
            />
            <ToolbarItem>
              <SearchBox label="Summary" value={params.summary} onChange={(summary) => update({ summary })} />
            </ToolbarItem>
            <ToolbarItem>
              <SearchBox label="Source" value={params.source} onChange={(source) => update({ source })} />
            </ToolbarItem>
            <ToolbarItem>
              <SearchBox label="Created by" value={params.createdBy} onChange={(createdBy) => update({ createdBy })} />
            </ToolbarItem>
            <ToolbarItem>
              <SearchBox label="Tags" placeholder="Tags: key=value" value={params.tags} onChange={(tags) => update({ tags })} />
            </ToolbarItem>
            {configId && (
              <>
                <FilterItem label="Related changes" isLabelHidden>
                  <SimpleSelect
                    label="Related changes"
                    options={RECURSIVE_OPTIONS}
                    value={params.recursive}
                    onChange={(v) => update({ recursive: v as ChangesParams['recursive'] })}
                  />
                </FilterItem>
                {params.recursive !== 'none' && (
                  <FilterItem label="Depth" isLabelHidden>
                    <SimpleSelect
                      label="Depth"
                      options={DEPTH_OPTIONS}
                      value={String(params.depth)}
                      onChange={(v) => update({ depth: Number(v) })}
                    />
                  </FilterItem>
                )}
              </>
            )}
            <ToolbarItem alignSelf="center">
              <Checkbox
                id="qd-changes-deleted"
                label="Include deleted configs"
                isChecked={includeDeleted}
                onChange={(_e, checked) => update({ includeDeleted: checked === showDeleted ? undefined : checked })}
              />
            </ToolbarItem>
          </ToolbarGroup>
          <ToolbarItem align={{ default: 'alignEnd' }}>
            <TimeRangePicker value={range} onChange={setRange} />
          </ToolbarItem>
        </ToolbarContent>
      </Toolbar>
      {wrongTags.length > 0 && <p className="pf-v6-u-danger-color-100">Tags must be key=value: {wrongTags.join(', ')}</p>}
      <SortableTable
        label="Changes"
        columns={columns}
        rows={rows}
        rowKey={(row) => row.id}
        sortBy={params.sortBy}
        sortDesc={params.sortDesc}
        onSort={(sortBy, sortDesc) => update({ sortBy, sortDesc })}
        defaultDirection="desc"
        onRowClick={(row) => update({ change: row.id })}
        isLoading={changes.isLoading}
        error={changes.error}
        errorTitle="Error loading changes"
      />
      <PagedFooter
        label="Changes pagination"
        total={total}
        capped={capped}
        page={params.page}
        pageSize={pageSize}
        pageSizes={PAGE_SIZES}
        onPage={(page) => update({ page })}
        onPageSize={(size) => update({ pageSize: size, page: 1 })}
      />
      {params.change && (
        <ChangeDetails
          id={params.change}
          item={openRow}
          onClose={() => setSearch((current) => withChangesParams(current, { change: undefined }), { replace: true })}
        />
      )}
    </>
  );
}
