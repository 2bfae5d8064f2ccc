// @vitest-environment jsdom
import { Modal, ModalBody } from '@patternfly/react-core';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, expect, it, vi } from 'vitest';
import { DeleteButton } from './ConfirmDialog';

afterEach(cleanup);

function Editor({ version, onDelete }: { version: number; onDelete(): Promise<unknown> }) {
  return (
    <Modal isOpen aria-label={`Editor ${version}`} variant="small">
      <ModalBody>
        <DeleteButton title="Delete thing" message="Delete it?" onConfirm={onDelete} />
      </ModalBody>
    </Modal>
  );
}

it('a confirmation asked from a modal stays in reach when the modal renders again', async () => {
  const onDelete = vi.fn(() => Promise.resolve());
  const { rerender } = render(<Editor version={1} onDelete={onDelete} />);
  fireEvent.click(screen.getByRole('button', { name: 'Delete' }));
  expect(screen.getByRole('dialog', { name: /Delete thing/ })).toBeTruthy();
  // A refetch behind it: the open modal hides the page's other children again.
  rerender(<Editor version={2} onDelete={onDelete} />);
  const confirm = await screen.findByRole('dialog', { name: /Delete thing/ });
  // While it is open, the editor behind it is out of reach.
  expect(screen.queryByRole('dialog', { name: 'Editor 2' })).toBeNull();
  fireEvent.click(within(confirm).getByRole('button', { name: 'Delete' }));
  await vi.waitFor(() => expect(onDelete).toHaveBeenCalledOnce());
  await vi.waitFor(() => expect(screen.queryByRole('dialog', { name: /Delete thing/ })).toBeNull());
  expect(screen.getByRole('dialog', { name: 'Editor 2' })).toBeTruthy();
});
