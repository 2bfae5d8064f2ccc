// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, expect, it, vi } from 'vitest';
import { DataTable, type Column } from './DataTable';

afterEach(cleanup);

type Row = { id: string; name: string };
const COLUMNS: Column<Row>[] = [{ title: 'Name', cell: (row) => row.name }];
const rowsOf = (n: number) => Array.from({ length: n }, (_, i) => ({ id: String(i), name: `row-${i}` }));

const table = () => screen.getByRole('grid', { name: 'Things' });
const bodyRows = () => within(table()).getAllByRole('row').slice(1);

it('shows one page of the rows and the next page on demand', () => {
  render(
    <DataTable
      aria-label="Things"
      columns={COLUMNS}
      query={{ data: rowsOf(60), isLoading: false, error: null }}
      errorTitle="Error"
      rowKey={(r) => r.id}
      isPaginated
    />,
  );
  expect(bodyRows()).toHaveLength(50);
  fireEvent.click(screen.getByRole('button', { name: 'Go to next page' }));
  expect(bodyRows().map((r) => r.textContent)).toEqual([
    'row-50',
    'row-51',
    'row-52',
    'row-53',
    'row-54',
    'row-55',
    'row-56',
    'row-57',
    'row-58',
    'row-59',
  ]);
});

it('keeps the page number on a new page size when it still exists, else goes to the last page', () => {
  render(
    <DataTable
      aria-label="Things"
      columns={COLUMNS}
      query={{ data: rowsOf(250), isLoading: false, error: null }}
      errorTitle="Error"
      rowKey={(r) => r.id}
      isPaginated
    />,
  );
  const next = () => fireEvent.click(screen.getByRole('button', { name: 'Go to next page' }));
  const perPage = (size: number) => {
    fireEvent.click(screen.getByRole('button', { name: /of 250/ }));
    fireEvent.click(screen.getByRole('menuitem', { name: `${size} per page` }));
  };
  next();
  next();
  next();
  perPage(100);
  expect(bodyRows()[0]?.textContent).toBe('row-200');
  perPage(200);
  expect(bodyRows()[0]?.textContent).toBe('row-200');
  perPage(50);
  expect(bodyRows()[0]?.textContent).toBe('row-50');
});

it('opens only the clickable rows, adds an actions column and no empty toolbar', () => {
  const open = vi.fn();
  const { container } = render(
    <DataTable
      aria-label="Things"
      columns={COLUMNS}
      query={{ data: rowsOf(2), isLoading: false, error: null }}
      errorTitle="Error"
      rowKey={(r) => r.id}
      onRowClick={open}
      isRowClickable={(r) => r.id === '1'}
      actions={(r) => <button type="button">{`Act on ${r.name}`}</button>}
    />,
  );
  expect(
    within(table())
      .getAllByRole('columnheader')
      .map((h) => h.textContent),
  ).toEqual(['Name', 'Actions']);
  fireEvent.click(screen.getByText('row-0'));
  fireEvent.click(screen.getByText('row-1'));
  expect(open).toHaveBeenCalledExactlyOnceWith({ id: '1', name: 'row-1' });
  expect(container.querySelector('.pf-v6-c-toolbar')).toBeNull();
});

it("says 'No data available' when the query has no rows", () => {
  render(
    <DataTable
      aria-label="Things"
      columns={COLUMNS}
      query={{ data: [], isLoading: false, error: null }}
      errorTitle="Error"
      rowKey={(r) => r.id}
    />,
  );
  expect(screen.getByText('No data available')).toBeTruthy();
});
