import { Label } from '@patternfly/react-core';
import { useState } from 'react';
import { Link } from 'react-router';
import { DateTime } from '../../components/DateTime';
import { PagedFooter, byPageIndex } from '../../components/PagedFooter';
import { SortableTable, type SortableColumn } from '../../components/SortableTable';
import { jobStatusColor } from '../../lib/integrations';
import { JobDetailsModal } from './JobDetailsModal';
import { PAGE_SIZES, type Sort, type SortColumn } from './jobFilters';
import { detailsTabs, formatDuration, resourcePath, type JobHistoryRow } from './jobHistory';

function ResourceCell({ row }: { row: JobHistoryRow }) {
  if (!row.resource_type) return null;
  const path = resourcePath(row);
  const name = row.resource_name ?? row.resource_id;
  return (
    <>
      <Label isCompact>{row.resource_type}</Label>{' '}
      {path ? (
        <Link to={path} onClick={(e) => e.stopPropagation()}>
          {name}
        </Link>
      ) : (
        name
      )}
    </>
  );
}

type Column = SortableColumn<JobHistoryRow, SortColumn>;

const NAME: Column = { title: 'Name', sortBy: 'name', cell: (row) => row.name };
const RESOURCE: Column = { title: 'Resource', sortBy: 'resource_type', cell: (row) => <ResourceCell row={row} /> };
const REST: Column[] = [
  { title: 'Agent', cell: (row) => row.agent?.name },
  {
    title: 'Status',
    sortBy: 'status',
    cell: (row) => (
      <Label isCompact color={jobStatusColor(row.status)}>
        {row.status}
      </Label>
    ),
  },
  { title: 'Started', sortBy: 'time_start', nowrap: true, cell: (row) => <DateTime value={row.time_start} /> },
  { title: 'Duration', sortBy: 'duration_millis', cell: (row) => formatDuration(row.duration_millis) },
  { title: 'Success Count', sortBy: 'success_count', cell: (row) => row.success_count },
  { title: 'Error Count', sortBy: 'error_count', cell: (row) => row.error_count },
];
const WITH_RESOURCE = [NAME, RESOURCE, ...REST];
const WITHOUT_RESOURCE = [NAME, ...REST];

const hasDetails = (row: JobHistoryRow) => detailsTabs(row.details).length > 0;

export interface JobHistoryTableProps {
  label: string;
  rows: JobHistoryRow[];
  total: number;
  isLoading: boolean;
  error: unknown;
  sort: Sort;
  onSort(sort: Sort): void;
  pageIndex: number;
  pageSize: number;
  onPage(pageIndex: number, pageSize: number): void;
  /** Off inside one resource's own history. */
  showResource?: boolean;
}

/** Job runs, sortable and paginated; a row with details opens them. */
export function JobHistoryTable({
  label,
  rows,
  total,
  isLoading,
  error,
  sort,
  onSort,
  pageIndex,
  pageSize,
  onPage,
  showResource = true,
}: JobHistoryTableProps) {
  const [open, setOpen] = useState<JobHistoryRow>();
  const openTabs = open ? detailsTabs(open.details) : [];
  return (
    <>
      <SortableTable
        label={label}
        columns={showResource ? WITH_RESOURCE : WITHOUT_RESOURCE}
        rows={rows}
        rowKey={(row) => row.id}
        sortBy={sort.by}
        sortDesc={sort.desc}
        onSort={(by, desc) => onSort({ by, desc })}
        defaultDirection="desc"
        wrapHeaders
        onRowClick={(row) => setOpen(row)}
        isRowClickable={hasDetails}
        isLoading={isLoading}
        error={error}
        errorTitle="Error loading job history"
      />
      <PagedFooter label={`${label} pagination`} total={total} pageSizes={PAGE_SIZES} {...byPageIndex(pageIndex, pageSize, onPage)} />
      {open && openTabs.length > 0 && <JobDetailsModal name={open.name} tabs={openTabs} onClose={() => setOpen(undefined)} />}
    </>
  );
}
