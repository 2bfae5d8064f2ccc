// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, expect, it, vi } from 'vitest';
import { SortableTable, type SortableColumn, type SortableTableProps } from './SortableTable';

afterEach(cleanup);

type Row = { id: string; name: string; size: number };
type Key = 'name' | 'size';
const COLUMNS: SortableColumn<Row, Key>[] = [
  { title: 'Name', sortBy: 'name', cell: (row) => <a href={`/things/${row.id}`}>{row.name}</a> },
  { title: 'Size', sortBy: 'size', cell: (row) => row.size },
  { title: 'Note', cell: () => 'plain' },
];
const ROWS: Row[] = [
  { id: '1', name: 'alpha', size: 3 },
  { id: '2', name: 'beta', size: 1 },
];

function show(props: Partial<SortableTableProps<Row, Key>> = {}) {
  const onSort = vi.fn();
  const onRowClick = vi.fn();
  render(
    <SortableTable
      label="Things"
      columns={COLUMNS}
      rows={ROWS}
      rowKey={(row) => row.id}
      sortBy="name"
      sortDesc={false}
      onSort={onSort}
      onRowClick={onRowClick}
      isLoading={false}
      error={null}
      errorTitle="Error loading things"
      {...props}
    />,
  );
  return { onSort, onRowClick };
}

const table = () => screen.getByRole('grid', { name: 'Things' });
const bodyRows = () => within(table()).getAllByRole('row').slice(1);
const noteOf = (index: number) => {
  const row = bodyRows()[index];
  if (!row) throw new Error(`no row ${index}`);
  return within(row).getByText('plain');
};

it('marks the sorted column and sorts by a header', () => {
  const { onSort } = show({ sortBy: 'size', sortDesc: true, defaultDirection: 'desc' });
  expect(screen.getByRole('columnheader', { name: 'Size' }).getAttribute('aria-sort')).toBe('descending');
  expect(screen.getByRole('columnheader', { name: 'Name' }).getAttribute('aria-sort')).toBeNull();
  fireEvent.click(screen.getByRole('button', { name: 'Size' }));
  expect(onSort).toHaveBeenLastCalledWith('size', false);
  fireEvent.click(screen.getByRole('button', { name: 'Name' }));
  expect(onSort).toHaveBeenLastCalledWith('name', true);
  expect(within(screen.getByRole('columnheader', { name: 'Note' })).queryByRole('button')).toBeNull();
});

it('renders a cell per column and opens a row unless its link is clicked', () => {
  const { onRowClick } = show();
  expect(bodyRows().map((r) => r.textContent)).toEqual(['alpha3plain', 'beta1plain']);
  fireEvent.click(noteOf(1));
  expect(onRowClick).toHaveBeenCalledWith(ROWS[1]);
  fireEvent.click(screen.getByRole('link', { name: 'alpha' }));
  expect(onRowClick).toHaveBeenCalledTimes(1);
});

it('opens only the rows that can open', () => {
  const { onRowClick } = show({ isRowClickable: (row) => row.id === '2' });
  fireEvent.click(noteOf(0));
  expect(onRowClick).not.toHaveBeenCalled();
  fireEvent.click(noteOf(1));
  expect(onRowClick).toHaveBeenCalledWith(ROWS[1]);
});

it('shows loading, the error without rows, and no data', () => {
  show({ isLoading: true, rows: [] });
  screen.getByRole('progressbar', { name: 'Loading' });
  cleanup();
  show({ error: new Error('boom') });
  screen.getByRole('heading', { name: 'Error loading things' });
  expect(screen.queryByText('alpha')).toBeNull();
  cleanup();
  show({ rows: [] });
  screen.getByRole('heading', { name: 'No data available' });
});
