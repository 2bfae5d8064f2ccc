import { Toolbar, ToolbarContent, ToolbarItem } from '@patternfly/react-core';
import { useState, type ReactNode } from 'react';
import { PAGE_SIZES, usePreference } from '../app/preferences';
import { ListTable, type Column } from './ListTable';
import { PagedFooter } from './PagedFooter';

export type { Column };

export interface DataTableProps<T> {
  'aria-label': string;
  columns: Column<T>[];
  /** The list's query: its rows, loading and error states. */
  query: { data?: T[]; isLoading: boolean; error: unknown };
  /** Title of the message shown when the query fails. */
  errorTitle: string;
  rowKey(row: T): string;
  /** Content of the toolbar's first item, typically an add button. */
  toolbar?: ReactNode;
  /** Pages the rows on the client with the page-size preference. */
  isPaginated?: boolean;
  onRowClick?(row: T): void;
  /** Whether a row opens on click; every row does when onRowClick is set and this is not. */
  isRowClickable?(row: T): boolean;
  /** Content of a last, unlabelled actions cell. */
  actions?(row: T): ReactNode;
}

/** A compact list table with an optional toolbar and pagination above it. */
export function DataTable<T>({
  'aria-label': ariaLabel,
  columns,
  query,
  errorTitle,
  rowKey,
  toolbar,
  isPaginated,
  onRowClick,
  isRowClickable,
  actions,
}: DataTableProps<T>) {
  const [perPage, setPerPage] = usePreference('pageSize');
  const [page, setPage] = useState(1);
  const all = query.data ?? [];
  const rows = isPaginated ? all.slice((page - 1) * perPage, page * perPage) : all;

  return (
    <>
      {(toolbar || isPaginated) && (
        <Toolbar>
          <ToolbarContent>
            {toolbar && <ToolbarItem>{toolbar}</ToolbarItem>}
            {isPaginated && (
              <PagedFooter
                total={all.length}
                page={page}
                pageSize={perPage}
                pageSizes={PAGE_SIZES}
                onPage={setPage}
                // The page shown, or the last one at the new size, as PatternFly's menu picks it.
                onPageSize={(size) => {
                  setPerPage(size);
                  setPage(Math.min(page, Math.ceil(all.length / perPage), Math.ceil(all.length / size)));
                }}
                placement="toolbar"
              />
            )}
          </ToolbarContent>
        </Toolbar>
      )}
      <ListTable
        aria-label={ariaLabel}
        columns={columns}
        rows={rows}
        isLoading={query.isLoading}
        error={query.error}
        errorTitle={errorTitle}
        rowKey={rowKey}
        onRowClick={onRowClick}
        isRowClickable={isRowClickable}
        actions={actions}
      />
    </>
  );
}
