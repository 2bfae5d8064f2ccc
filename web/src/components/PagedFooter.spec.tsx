// @vitest-environment jsdom
import { Toolbar, ToolbarContent } from '@patternfly/react-core';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, expect, it, vi } from 'vitest';
import { PagedFooter, byPageIndex, totalText } from './PagedFooter';

afterEach(cleanup);

const SIZES = [10, 50];
const nav = (name: string) => screen.getByRole('navigation', { name });

it('shows a capped total as a lower bound', () => {
  expect(totalText(1234, false)).toBe('1,234');
  expect(totalText(10050, true)).toBe('10,050+');
});

it('pages from 1 and picks a page size', () => {
  const onPage = vi.fn();
  const onPageSize = vi.fn();
  render(
    <PagedFooter label="Things pagination" total={120} page={2} pageSize={50} pageSizes={SIZES} onPage={onPage} onPageSize={onPageSize} />,
  );
  expect(screen.getAllByText('51 - 100').length).toBeGreaterThan(0);
  fireEvent.click(screen.getByRole('button', { name: 'Go to next page' }));
  expect(onPage).toHaveBeenCalledExactlyOnceWith(3);
  fireEvent.click(screen.getByRole('button', { name: /51 - 100/ }));
  fireEvent.click(screen.getByRole('menuitem', { name: '10 per page' }));
  expect(onPageSize).toHaveBeenCalledExactlyOnceWith(10);
  expect(nav('Things pagination')).toBeTruthy();
  expect(document.querySelector('.pf-v6-c-pagination.pf-m-bottom')).not.toBeNull();
  expect(screen.getByLabelText('Current page')).toBeTruthy();
});

it('pages from 0 for a page index, the size going along', () => {
  const onPage = vi.fn();
  render(<PagedFooter total={120} pageSizes={SIZES} {...byPageIndex(0, 50, onPage)} />);
  expect(screen.getAllByText('1 - 50').length).toBeGreaterThan(0);
  fireEvent.click(screen.getByRole('button', { name: 'Go to next page' }));
  expect(onPage).toHaveBeenLastCalledWith(1, 50);
  fireEvent.click(screen.getByRole('button', { name: /1 - 50/ }));
  fireEvent.click(screen.getByRole('menuitem', { name: '10 per page' }));
  expect(onPage).toHaveBeenLastCalledWith(0, 10);
});

it('reads a capped count as "at least", with separators', () => {
  const { rerender } = render(<PagedFooter total={1050} capped page={1} pageSize={50} pageSizes={SIZES} onPage={vi.fn()} />);
  expect(screen.getAllByText('1,050+').length).toBeGreaterThan(0);
  rerender(<PagedFooter total={1050} capped={false} page={1} pageSize={50} pageSizes={SIZES} onPage={vi.fn()} />);
  expect(screen.getAllByText('1,050').length).toBeGreaterThan(0);
  expect(screen.queryByText('1,050+')).toBeNull();
});

it('leaves an empty table without a footer, but keeps the bar above it', () => {
  const { container, rerender } = render(<PagedFooter total={0} page={1} pageSize={50} pageSizes={SIZES} onPage={vi.fn()} />);
  expect(container.querySelector('.pf-v6-c-pagination')).toBeNull();
  rerender(<PagedFooter total={0} page={1} pageSize={50} pageSizes={SIZES} onPage={vi.fn()} placement="top" />);
  expect(container.querySelector('.pf-v6-c-pagination:not(.pf-m-bottom)')).not.toBeNull();
  expect(screen.queryByLabelText('Current page')).toBeNull();
});

it('sits at the end of a toolbar', () => {
  const { container } = render(
    <Toolbar>
      <ToolbarContent>
        <PagedFooter total={60} page={1} pageSize={50} pageSizes={[50]} onPage={vi.fn()} placement="toolbar" />
      </ToolbarContent>
    </Toolbar>,
  );
  expect(container.querySelector('.pf-v6-c-toolbar__item.pf-m-pagination .pf-v6-c-pagination')).not.toBeNull();
  expect(screen.queryByLabelText('Current page')).toBeNull();
});
