// @vitest-environment jsdom
import { DropdownItem, DropdownList } from '@patternfly/react-core';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, expect, it, vi } from 'vitest';
import { IconMenu } from './IconMenu';

afterEach(cleanup);

it('opens from its named toggle and closes when an item asks it to', () => {
  const onPick = vi.fn();
  render(
    <IconMenu label="User menu" icon={<span>icon</span>} text="Ada">
      {(close) => (
        <DropdownList>
          <DropdownItem onClick={() => (close(), onPick())}>Pick</DropdownItem>
        </DropdownList>
      )}
    </IconMenu>,
  );
  const toggle = screen.getByRole('button', { name: 'User menu' });
  expect(toggle.textContent).toContain('Ada');
  expect(screen.queryByRole('menuitem', { name: 'Pick' })).toBeNull();
  fireEvent.click(toggle);
  fireEvent.click(screen.getByRole('menuitem', { name: 'Pick' }));
  expect(onPick).toHaveBeenCalledOnce();
  expect(screen.queryByRole('menuitem', { name: 'Pick' })).toBeNull();
});
