import { Label, Pagination } from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr, type ThProps } from '@patternfly/react-table';
import { useState } from 'react';
import { Link } from 'react-router';
import { DateTime } from '../../components/DateTime';
import { TableStateRow } from '../../components/TableStates';
import { jobStatusColor } from '../../lib/integrations';
import { JobDetailsModal } from './JobDetailsModal';
import { PAGE_SIZES, type Sort, type SortColumn } from './jobFilters';
import { detailsTabs, formatDuration, resourcePath, type JobHistoryRow } from './jobHistory';

const PER_PAGE_OPTIONS = PAGE_SIZES.map((n) => ({ title: String(n), value: n }));

interface Column {
  title: string;
  sortBy?: SortColumn;
  resourceOnly?: boolean;
}

const COLUMNS: Column[] = [
  { title: 'Name', sortBy: 'name' },
  { title: 'Resource', sortBy: 'resource_type', resourceOnly: true },
  { title: 'Agent' },
  { title: 'Status', sortBy: 'status' },
  { title: 'Started', sortBy: 'time_start' },
  { title: 'Duration', sortBy: 'duration_millis' },
  { title: 'Success Count', sortBy: 'success_count' },
  { title: 'Error Count', sortBy: 'error_count' },
];

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
  const columns = COLUMNS.filter((c) => showResource || !c.resourceOnly);
  const sortIndex = columns.findIndex((c) => c.sortBy === sort.by);

  const sortProps = (column: Column, index: number): ThProps['sort'] =>
    column.sortBy && {
      columnIndex: index,
      sortBy:
        sortIndex >= 0
          ? { index: sortIndex, direction: sort.desc ? 'desc' : 'asc', defaultDirection: 'desc' }
          : { defaultDirection: 'desc' },
      onSort: (_e, _i, direction) => onSort({ by: column.sortBy as SortColumn, desc: direction === 'desc' }),
    };

  const openTabs = open ? detailsTabs(open.details) : [];
  const pagination = (
    <Pagination
      itemCount={total}
      page={pageIndex + 1}
      perPage={pageSize}
      perPageOptions={PER_PAGE_OPTIONS}
      onSetPage={(_e, page) => onPage(page - 1, pageSize)}
      onPerPageSelect={(_e, size) => onPage(0, size)}
      variant="bottom"
      titles={{ paginationAriaLabel: `${label} pagination` }}
    />
  );

  return (
    <>
      <Table aria-label={label} variant="compact">
        <Thead>
          <Tr>
            {columns.map((c, i) => (
              <Th key={c.title} sort={sortProps(c, i)} modifier="wrap">
                {c.title}
              </Th>
            ))}
          </Tr>
        </Thead>
        <Tbody>
          <TableStateRow
            colSpan={columns.length}
            isLoading={isLoading}
            error={error}
            errorTitle="Error loading job history"
            isEmpty={rows.length === 0}
          />
          {rows.map((row) => {
            const hasDetails = detailsTabs(row.details).length > 0;
            return (
              <Tr
                key={row.id}
                isClickable={hasDetails}
                onRowClick={hasDetails ? () => setOpen(row) : undefined}
                className={hasDetails ? 'qd-clickable-row' : undefined}
              >
                <Td dataLabel="Name">{row.name}</Td>
                {showResource && (
                  <Td dataLabel="Resource">
                    <ResourceCell row={row} />
                  </Td>
                )}
                <Td dataLabel="Agent">{row.agent?.name}</Td>
                <Td dataLabel="Status">
                  <Label isCompact color={jobStatusColor(row.status)}>
                    {row.status}
                  </Label>
                </Td>
                <Td dataLabel="Started" modifier="nowrap">
                  <DateTime value={row.time_start} />
                </Td>
                <Td dataLabel="Duration">{formatDuration(row.duration_millis)}</Td>
                <Td dataLabel="Success Count">{row.success_count}</Td>
                <Td dataLabel="Error Count">{row.error_count}</Td>
              </Tr>
            );
          })}
        </Tbody>
      </Table>
      {total > 0 && pagination}
      {open && openTabs.length > 0 && <JobDetailsModal name={open.name} tabs={openTabs} onClose={() => setOpen(undefined)} />}
    </>
  );
}
