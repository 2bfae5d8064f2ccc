import { useNavigate } from 'react-router';
import { PAGE_SIZES } from '../../../app/preferences';
import { PagedFooter, byPageIndex } from '../../../components/PagedFooter';
import { SortableTable, type SortableColumn } from '../../../components/SortableTable';
import { formatDateTime } from '../../../lib/format';
import { NULL_AGENT_ID } from '../../../lib/healthFormat';
import { ConfigHealth } from '../shared/ConfigHealth';
import { ConfigLink } from '../shared/ConfigLink';
import { TagChips } from '../shared/TagChips';
import type { SortColumn } from './catalogParams';
import type { ConfigRow } from './useCatalogData';

type Counts = ReadonlyMap<string, { changes?: number; analysis?: number } | null>;

type Column = SortableColumn<ConfigRow, SortColumn>;

const COSTS = [
  ['cost_per_minute', 'Cost per Minute'],
  ['cost_total_1d', 'Cost (1d)'],
  ['cost_total_7d', 'Cost (7d)'],
  ['cost_total_30d', 'Cost (30d)'],
] as const;

const money = (value: number | null) => (value ? `$${value.toFixed(2)}` : '');

/** The compact age of a time ("3d"), the full time on hover. */
function Age({ value }: { value: string | null }) {
  if (!value) return null;
  return (
    <time dateTime={value} title={formatDateTime(value)}>
      {formatDateTime(value, 'short')}
    </time>
  );
}

/** The columns before the costs, with the page's counts of changes and insights. */
const beforeCosts = (counts: Counts | undefined): Column[] => [
  {
    title: 'Name',
    sortBy: 'name',
    cell: (row) => (
      <>
        <ConfigLink id={row.id} name={row.name} type={row.type} />
        {row.deleted_at && <span className="qd-catalog-deleted"> (deleted)</span>}
      </>
    ),
  },
  { title: 'Type', sortBy: 'type', cell: (row) => row.type },
  { title: 'Health', sortBy: 'health', cell: (row) => <ConfigHealth health={row.health} /> },
  { title: 'Status', sortBy: 'status', cell: (row) => row.status },
  { title: 'Labels', cell: (row) => <TagChips tags={row.labels as Record<string, unknown>} label="Labels" /> },
  { title: 'Tags', cell: (row) => <TagChips tags={row.tags as Record<string, unknown>} label="Tags" /> },
  { title: 'Changes', cell: (row) => counts?.get(row.id)?.changes },
  { title: 'Insights', cell: (row) => counts?.get(row.id)?.analysis },
];

const AFTER_COSTS: Column[] = [
  { title: 'Created', sortBy: 'created_at', cell: (row) => <Age value={row.created_at} /> },
  { title: 'Updated', sortBy: 'updated_at', cell: (row) => <Age value={row.updated_at} /> },
  { title: 'Agent', cell: (row) => (row.agent_id === NULL_AGENT_ID ? 'local' : row.agent?.name) },
];

/** The cost columns any row of the page has a cost in. */
function costColumns(rows: readonly ConfigRow[]): Column[] {
  return COSTS.filter(([key]) => rows.some((r) => r[key])).map(([key, title]) => ({
    title,
    sortBy: key,
    cell: (row: ConfigRow) => money(row[key]),
  }));
}

export interface CatalogTableProps {
  rows: readonly ConfigRow[];
  counts?: Counts;
  total: number;
  isLoading: boolean;
  error: unknown;
  sortBy: SortColumn;
  sortDesc: boolean;
  onSort(sortBy: SortColumn, sortDesc: boolean): void;
  pageIndex: number;
  pageSize: number;
  onPage(pageIndex: number, pageSize: number): void;
}

/** One page of config items; a row opens its item. Cells are plain text and
 * links so a page of 200 renders quickly. */
export function CatalogTable({
  rows,
  counts,
  total,
  isLoading,
  error,
  sortBy,
  sortDesc,
  onSort,
  pageIndex,
  pageSize,
  onPage,
}: CatalogTableProps) {
  const navigate = useNavigate();
  const columns = [...beforeCosts(counts), ...costColumns(rows), ...AFTER_COSTS];
  const pagination = (placement: 'top' | 'bottom') => (
    <PagedFooter
      label={`Config items pagination (${placement})`}
      total={total}
      pageSizes={PAGE_SIZES}
      {...byPageIndex(pageIndex, pageSize, onPage)}
      placement={placement}
    />
  );

  return (
    <>
      {pagination('top')}
      <div className="qd-catalog-table">
        <SortableTable
          label="Config items"
          columns={columns}
          rows={rows}
          rowKey={(row) => row.id}
          sortBy={sortBy}
          sortDesc={sortDesc}
          onSort={onSort}
          onRowClick={(row) => void navigate(`/catalog/${row.id}`)}
          isLoading={isLoading}
          error={error}
          errorTitle="Error loading config items"
        />
      </div>
      {pagination('bottom')}
    </>
  );
}
