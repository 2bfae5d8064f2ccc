import { Toolbar, ToolbarContent, ToolbarGroup } from '@patternfly/react-core';
import { useCallback, useMemo, type ReactNode } from 'react';
import { withFilterChanges } from '../lib/searchChanges';
import { ListTable, type ListTableProps } from './ListTable';
import { PagedFooter } from './PagedFooter';
import { useLiveSearchParams } from '../app/useLiveSearchParams';

/** A server-paged list: its filters, actions and pager in a toolbar above the table. */
export interface PagedListProps<T> extends Omit<ListTableProps<T>, 'rows' | 'isLoading' | 'error'> {
  /** The page's query: its rows and the total the filters match. */
  query: { data?: { rows: readonly T[]; total: number }; isLoading: boolean; error: unknown };
  /** Filter items (FilterItem, SearchBox), grouped as the list's filters. */
  filters?: ReactNode;
  /** Toolbar items after the filters, such as an add button. */
  tools?: ReactNode;
  /** The pager; it is named '<aria-label> pagination'. */
  pager: {
    page: number;
    pageSize: number;
    pageSizes: readonly number[];
    onPage(page: number): void;
    onPageSize(pageSize: number): void;
  };
}

/** The list pages' scaffolding: a toolbar of filters, tools and the pager, then the table with
 * its loading, error and empty states. */
export function PagedList<T>({ query, filters, tools, pager, ...table }: PagedListProps<T>) {
  return (
    <>
      <Toolbar>
        <ToolbarContent>
          {filters && (
            <ToolbarGroup variant="filter-group" role="group" aria-label="Filters">
              {filters}
            </ToolbarGroup>
          )}
          {tools}
          <PagedFooter label={`${table['aria-label']} pagination`} total={query.data?.total ?? 0} placement="toolbar" {...pager} />
        </ToolbarContent>
      </Toolbar>
      <ListTable {...table} rows={query.data?.rows ?? []} isLoading={query.isLoading} error={query.error} />
    </>
  );
}

export type ListChanges = Record<string, string | number | undefined>;

/** A list's state read from the URL by `parse` (a module function), and its update: an empty or
 * 'All' value removes a parameter, and any change but paging goes back to the first page. */
export function useListSearch<P>(parse: (search: URLSearchParams) => P): [P, (changes: ListChanges, paging?: boolean) => void] {
  const [search, setSearch] = useLiveSearchParams();
  const text = search.toString();
  // eslint-disable-next-line react-hooks/exhaustive-deps -- `parse` is a module function; the URL's text is the state
  const params = useMemo(() => parse(new URLSearchParams(text)), [text]);
  const update = useCallback(
    (changes: ListChanges, paging = false) => setSearch((current) => withFilterChanges(current, changes, paging)),
    [setSearch],
  );
  return [params, update];
}
