// @vitest-environment jsdom
import { Button, TextInput } from '@patternfly/react-core';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, expect, it, vi } from 'vitest';
import { FormModal } from './FormModal';

afterEach(cleanup);

it('is a dialog named by its title that submits its form and cancels', () => {
  const onSubmit = vi.fn();
  const onClose = vi.fn();
  render(
    <FormModal
      id="thing-form"
      title="Add Thing"
      onClose={onClose}
      onSubmit={onSubmit}
      notice={<p>Read this first</p>}
      actions={
        <Button type="submit" form="thing-form">
          Save
        </Button>
      }
      cancelLabel="Never mind"
    >
      <TextInput aria-label="Name" value="" onChange={() => undefined} />
    </FormModal>,
  );
  const dialog = screen.getByRole('dialog', { name: 'Add Thing' });
  expect(dialog.textContent).toContain('Read this first');
  fireEvent.click(screen.getByRole('button', { name: 'Save' }));
  expect(onSubmit).toHaveBeenCalledOnce();
  fireEvent.click(screen.getByRole('button', { name: 'Never mind' }));
  expect(onClose).toHaveBeenCalled();
});
