import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import type { ReactNode } from 'react';
import { TableStateRow } from './TableStates';

export interface Column<T> {
  /** Header text, also the cell's data label. */
  title: string;
  cell(row: T): ReactNode;
}

export interface ListTableProps<T> {
  'aria-label': string;
  columns: readonly Column<T>[];
  /** The rows shown; the empty state when there are none. */
  rows: readonly T[];
  isLoading: boolean;
  error: unknown;
  /** Title of the message shown when the rows failed to load. */
  errorTitle: string;
  rowKey(row: T): string;
  onRowClick?(row: T): void;
  /** Whether a row opens on click; every row does when onRowClick is set and this is not. */
  isRowClickable?(row: T): boolean;
  /** Content of a last, unlabelled actions cell. */
  actions?(row: T): ReactNode;
}

/** A compact list table: a header per column, one row per item, and a full-width row while
 * loading, on failure or when there is nothing. */
export function ListTable<T>({
  'aria-label': ariaLabel,
  columns,
  rows,
  isLoading,
  error,
  errorTitle,
  rowKey,
  onRowClick,
  isRowClickable,
  actions,
}: ListTableProps<T>) {
  return (
    <Table aria-label={ariaLabel} variant="compact">
      <Thead>
        <Tr>
          {columns.map((c) => (
            <Th key={c.title}>{c.title}</Th>
          ))}
          {actions && <Th screenReaderText="Actions" />}
        </Tr>
      </Thead>
      <Tbody>
        <TableStateRow
          colSpan={columns.length + (actions ? 1 : 0)}
          isLoading={isLoading}
          error={error}
          errorTitle={errorTitle}
          isEmpty={rows.length === 0}
        />
        {rows.map((row) => {
          const open = onRowClick && (isRowClickable?.(row) ?? true) ? () => onRowClick(row) : undefined;
          return (
            <Tr key={rowKey(row)} isClickable={Boolean(open)} onRowClick={open}>
              {columns.map((c) => (
                <Td key={c.title} dataLabel={c.title}>
                  {c.cell(row)}
                </Td>
              ))}
              {actions && <Td isActionCell>{actions(row)}</Td>}
            </Tr>
          );
        })}
      </Tbody>
    </Table>
  );
}
