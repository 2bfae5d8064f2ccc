import { Pagination, ToolbarItem } from '@patternfly/react-core';

/** The total as the pager's caption: "10,000+" when the count stopped there. */
export function totalText(total: number, capped: boolean): string {
  return `${total.toLocaleString('en-US')}${capped ? '+' : ''}`;
}

/** PagedFooter's paging for a table paged by an index from 0 whose handler takes the size too. */
export function byPageIndex(pageIndex: number, pageSize: number, onPage: (pageIndex: number, pageSize: number) => void) {
  return {
    page: pageIndex,
    firstPage: 0,
    pageSize,
    onPage: (page: number) => onPage(page, pageSize),
    onPageSize: (size: number) => onPage(0, size),
  } as const;
}

export interface PagedFooterProps {
  /** The pagination's accessible name (PatternFly's default when unset). */
  label?: string;
  total: number;
  /** Set for a count the server may cap: the toggle then reads "1 - 50 of 1,234", with a "+" when true. */
  capped?: boolean;
  page: number;
  /** How `page` (and the page `onPage` gets) is numbered: from 1, or from 0 for a page index. */
  firstPage?: 0 | 1;
  pageSize: number;
  pageSizes: readonly number[];
  onPage(page: number): void;
  /** A page size picked from the menu; the menu picks nothing without it. */
  onPageSize?(pageSize: number): void;
  /** 'bottom' under a table, shown only when there is something to count; 'top' a compact bar
   * above it; 'toolbar' a compact item at the end of a toolbar. */
  placement?: 'bottom' | 'top' | 'toolbar';
}

/** The pagination of a paged table. */
export function PagedFooter({
  label,
  total,
  capped,
  page,
  firstPage = 1,
  pageSize,
  pageSizes,
  onPage,
  onPageSize,
  placement = 'bottom',
}: PagedFooterProps) {
  if (placement === 'bottom' && total <= 0) return null;
  const pagination = (
    <Pagination
      itemCount={total}
      page={page + 1 - firstPage}
      perPage={pageSize}
      perPageOptions={pageSizes.map((n) => ({ title: String(n), value: n }))}
      onSetPage={(_e, p) => onPage(p - 1 + firstPage)}
      onPerPageSelect={onPageSize && ((_e, size) => onPageSize(size))}
      toggleTemplate={
        capped === undefined
          ? undefined
          : ({ firstIndex, lastIndex }) => (
              <>
                <b>
                  {firstIndex} - {lastIndex}
                </b>{' '}
                of <b>{totalText(total, capped)}</b>
              </>
            )
      }
      variant={placement === 'bottom' ? 'bottom' : 'top'}
      isCompact={placement !== 'bottom'}
      titles={label === undefined ? undefined : { paginationAriaLabel: label }}
    />
  );
  return placement === 'toolbar' ? (
    <ToolbarItem variant="pagination" align={{ default: 'alignEnd' }}>
      {pagination}
    </ToolbarItem>
  ) : (
    pagination
  );
}
