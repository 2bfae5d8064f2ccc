// @vitest-environment jsdom
import { Toolbar, ToolbarContent } from '@patternfly/react-core';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, expect, it, vi } from 'vitest';
import { FilterItem, MultiSelectFilter } from './FilterItem';

afterEach(cleanup);

const inToolbar = (children: ReactNode) =>
  render(
    <Toolbar>
      <ToolbarContent>{children}</ToolbarContent>
    </Toolbar>,
  );

it('puts a visible label in an item of its own before the control', () => {
  const { container } = inToolbar(
    <FilterItem label="Status">
      <input aria-label="Filter by status" />
    </FilterItem>,
  );
  const label = container.querySelector('.pf-v6-c-toolbar__item.pf-m-label');
  expect(label?.textContent).toBe('Status');
  expect(label?.nextElementSibling?.contains(screen.getByRole('textbox', { name: 'Filter by status' }))).toBe(true);
});

it("keeps a hidden label for screen readers in the control's item", () => {
  const { container } = inToolbar(
    <FilterItem label="Severity" isLabelHidden>
      <input aria-label="Severity" />
    </FilterItem>,
  );
  expect(container.querySelector('.pf-m-label')).toBeNull();
  const label = screen.getByText('Severity');
  expect(label.className).toBe('pf-v6-u-screen-reader');
  expect(label.parentElement?.contains(screen.getByRole('textbox', { name: 'Severity' }))).toBe(true);
});

const OPTIONS = [
  { value: 'a', label: 'Alpha' },
  { value: 'b', label: 'Beta' },
];

it('names a multi-select "Filter by <label>" beside a visible label, and toggles its values', () => {
  const onChange = vi.fn();
  inToolbar(<MultiSelectFilter label="Health" options={OPTIONS} values={['a']} onChange={onChange} />);
  const toggle = screen.getByRole('button', { name: 'Filter by health' });
  expect(toggle.textContent).toBe('Alpha');
  fireEvent.click(toggle);
  fireEvent.click(screen.getByRole('checkbox', { name: 'Beta' }));
  expect(onChange).toHaveBeenLastCalledWith(['a', 'b']);
  fireEvent.click(screen.getByRole('checkbox', { name: 'Alpha' }));
  expect(onChange).toHaveBeenLastCalledWith([]);
});

it('names a multi-select by a hidden label, which is its placeholder too', () => {
  inToolbar(<MultiSelectFilter label="Severity" isLabelHidden options={OPTIONS} values={[]} onChange={vi.fn()} />);
  expect(screen.getByRole('button', { name: 'Severity' }).textContent).toBe('Severity');
});
