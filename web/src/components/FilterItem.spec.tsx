// @vitest-environment jsdom
import { Toolbar, ToolbarContent } from '@patternfly/react-core';
import { cleanup, render, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, expect, it } from 'vitest';
import { FilterItem } from './FilterItem';

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
