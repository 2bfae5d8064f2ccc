import { Toolbar, ToolbarContent, ToolbarGroup, ToolbarItem } from '@patternfly/react-core';
import { useCallback, useMemo } from 'react';
import { usePreference } from '../../../app/preferences';
import { DateTime } from '../../../components/DateTime';
import { PagedFooter } from '../../../components/PagedFooter';
import { MultiSelect } from '../../../components/Selects';
import { SortableTable, type SortableColumn } from '../../../components/SortableTable';
import { ConfigLink } from '../shared/ConfigLink';
import type { Selected } from '../../../api/db';
import { toggled } from '../../../lib/selection';
import {
  ANALYSIS_TYPES,
  COLUMNS as COLUMNS_READ,
  PAGE_SIZES,
  SEVERITIES,
  STATUSES,
  parseInsightsParams,
  withInsightsParams,
  type InsightsParams,
  type SortColumn,
} from './insightsParams';
import { useAnalyzers, useInsights } from './useInsightsData';
import { useLiveSearchParams } from '../../../app/useLiveSearchParams';

type Row = Selected<'config_analysis_items', (typeof COLUMNS_READ)[number]>;

const options = (values: readonly string[]) => values.map((v) => ({ value: v, label: v }));

const COLUMNS: SortableColumn<Row, SortColumn>[] = [
  { title: 'Config', sortBy: 'config_name', cell: (r) => <ConfigLink id={r.config_id} name={r.config_name} type={r.config_type} /> },
  { title: 'Analyzer', sortBy: 'analyzer', cell: (r) => r.analyzer },
  { title: 'Type', sortBy: 'analysis_type', cell: (r) => r.analysis_type },
  { title: 'Severity', sortBy: 'severity', cell: (r) => r.severity },
  { title: 'Status', sortBy: 'status', cell: (r) => r.status },
  { title: 'Message', cell: (r) => r.message || r.summary },
  { title: 'First Observed', sortBy: 'first_observed', cell: (r) => <DateTime value={r.first_observed} /> },
  { title: 'Last Observed', sortBy: 'last_observed', cell: (r) => <DateTime value={r.last_observed} /> },
];

type ListKey = 'analyzers' | 'types' | 'severities' | 'statuses';

/** The insights (analyses) table with its filters; on an item's page
 * `configId` limits it to that item. Filters, sort and page live in the URL. */
export function InsightsView({ configId }: { configId?: string }) {
  const [search, setSearch] = useLiveSearchParams();
  const text = search.toString();
  const params = useMemo(() => parseInsightsParams(new URLSearchParams(text)), [text]);
  const update = useCallback(
    (patch: Partial<InsightsParams>) => setSearch((current) => withInsightsParams(current, patch), { replace: true }),
    [setSearch],
  );
  const [preferredSize] = usePreference('pageSize');
  const [includeDeleted] = usePreference('showDeleted');
  const pageSize = params.pageSize ?? preferredSize;
  const insights = useInsights(params, { configId, includeDeleted, pageSize });
  const analyzers = useAnalyzers();

  const rows = insights.data?.rows ?? [];
  const total = insights.data?.total ?? 0;
  const filter = (key: ListKey, label: string, choices: readonly string[]) => (
    <ToolbarItem>
      <MultiSelect
        label={label}
        placeholder={label}
        options={options(choices)}
        values={params[key]}
        onToggle={(v) => update({ [key]: toggled(params[key], v) })}
      />
    </ToolbarItem>
  );

  return (
    <>
      <Toolbar>
        <ToolbarContent>
          <ToolbarGroup variant="filter-group" role="group" aria-label="Filters">
            {filter('analyzers', 'Analyzer', analyzers.data ?? [])}
            {filter('types', 'Analysis type', ANALYSIS_TYPES)}
            {filter('severities', 'Severity', SEVERITIES)}
            {filter('statuses', 'Status', STATUSES)}
          </ToolbarGroup>
        </ToolbarContent>
      </Toolbar>
      <SortableTable
        label="Insights"
        columns={COLUMNS}
        rows={rows}
        rowKey={(row) => row.id}
        sortBy={params.sortBy}
        sortDesc={params.sortDesc}
        onSort={(sortBy, sortDesc) => update({ sortBy, sortDesc })}
        defaultDirection="desc"
        isLoading={insights.isLoading}
        error={insights.error}
        errorTitle="Error loading insights"
      />
      <PagedFooter
        label="Insights pagination"
        total={total}
        page={params.page}
        pageSize={pageSize}
        pageSizes={PAGE_SIZES}
        onPage={(page) => update({ page })}
        onPageSize={(size) => update({ pageSize: size, page: 1 })}
      />
    </>
  );
}
