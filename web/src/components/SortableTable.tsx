import { Table, Tbody, Td, Th, Thead, Tr, type ThProps } from '@patternfly/react-table';
import type { ReactNode } from 'react';
import { TableStateRow } from './TableStates';

export interface SortableColumn<Row, Key extends string> {
  title: string;
  /** The server's sort key; a column without one does not sort. */
  sortBy?: Key;
  cell(row: Row): ReactNode;
  /** Keeps the cell on one line. */
  nowrap?: boolean;
}

export interface SortableTableProps<Row, Key extends string> {
  label: string;
  columns: readonly SortableColumn<Row, Key>[];
  rows: readonly Row[];
  rowKey(row: Row): string;
  sortBy: Key;
  sortDesc: boolean;
  onSort(sortBy: Key, sortDesc: boolean): void;
  /** The direction a column sorts in when first chosen (PatternFly's default is ascending). */
  defaultDirection?: 'asc' | 'desc';
  /** Wraps long titles instead of keeping them on one line. */
  wrapHeaders?: boolean;
  /** Opens a row; a click on a link inside the row follows the link instead. */
  onRowClick?(row: Row): void;
  /** Which rows open; all of them when absent. */
  isRowClickable?(row: Row): boolean;
  isLoading: boolean;
  error: unknown;
  errorTitle: string;
}

const inLink = (event: { target: EventTarget } | undefined) => event?.target instanceof Element && event.target.closest('a') !== null;

/** A table sorted and paged on the server: headers that sort, one row for
 * loading, failure or no rows, then the rows (none while the read fails). */
export function SortableTable<Row, Key extends string>({
  label,
  columns,
  rows,
  rowKey,
  sortBy,
  sortDesc,
  onSort,
  defaultDirection,
  wrapHeaders,
  onRowClick,
  isRowClickable,
  isLoading,
  error,
  errorTitle,
}: SortableTableProps<Row, Key>) {
  const sortIndex = columns.findIndex((c) => c.sortBy === sortBy);
  const sortProps = (column: SortableColumn<Row, Key>, index: number): ThProps['sort'] => {
    const key = column.sortBy;
    if (key === undefined) return undefined;
    return {
      columnIndex: index,
      sortBy: sortIndex >= 0 ? { index: sortIndex, direction: sortDesc ? 'desc' : 'asc', defaultDirection } : { defaultDirection },
      onSort: (_e, _i, direction) => onSort(key, direction === 'desc'),
    };
  };

  return (
    <Table aria-label={label} variant="compact">
      <Thead>
        <Tr>
          {columns.map((c, i) => (
            <Th key={c.title} sort={sortProps(c, i)} modifier={wrapHeaders ? 'wrap' : 'nowrap'}>
              {c.title}
            </Th>
          ))}
        </Tr>
      </Thead>
      <Tbody>
        <TableStateRow colSpan={columns.length} isLoading={isLoading} error={error} errorTitle={errorTitle} isEmpty={rows.length === 0} />
        {!error &&
          rows.map((row) => {
            const clickable = onRowClick !== undefined && (isRowClickable?.(row) ?? true);
            return (
              <Tr
                key={rowKey(row)}
                isClickable={clickable}
                onRowClick={clickable ? (e) => !inLink(e) && onRowClick(row) : undefined}
                className={clickable ? 'qd-clickable-row' : undefined}
              >
                {columns.map((c) => (
                  <Td key={c.title} dataLabel={c.title} modifier={c.nowrap ? 'nowrap' : undefined}>
                    {c.cell(row)}
                  </Td>
                ))}
              </Tr>
            );
          })}
      </Tbody>
    </Table>
  );
}
