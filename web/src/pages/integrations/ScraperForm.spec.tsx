// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, expect, it, vi } from 'vitest';
import { ScraperForm } from './ScraperForm';
import type { DirectIntegrationRow } from './useIntegrationData';

afterEach(cleanup);

const row = (spec: unknown) => ({ id: 's1', name: 'prod', namespace: 'default', spec }) as unknown as DirectIntegrationRow;

it('edits retention entries, each a group, and saves them with the rest of the spec', () => {
  const onSubmit = vi.fn();
  const spec = { retention: { changes: [{ name: 'diff', age: '7d' }] }, kubernetes: [{ clusterName: 'prod' }] };
  render(<ScraperForm row={row(spec)} isBusy={false} onSubmit={onSubmit} />);
  const change = screen.getByRole('group', { name: 'Change retention 1' });
  expect((within(change).getByRole('textbox', { name: 'Change type' }) as HTMLInputElement).value).toBe('diff');

  fireEvent.click(screen.getByRole('button', { name: 'Add type retention' }));
  const type = screen.getByRole('group', { name: 'Type retention 1' });
  const update = screen.getByRole('button', { name: 'Update' }) as HTMLButtonElement;
  expect(update.disabled).toBe(true);
  const name = within(type).getByRole('textbox', { name: 'Item type' });
  fireEvent.blur(name);
  expect(within(type).getByText('This field is required')).toBeTruthy();
  fireEvent.change(name, { target: { value: 'Pod' } });
  expect(update.disabled).toBe(false);

  fireEvent.click(screen.getByRole('button', { name: 'Remove change retention 1' }));
  fireEvent.click(update);
  expect(onSubmit).toHaveBeenCalledWith({
    spec: { retention: { changes: [], types: [{ name: 'Pod' }] }, kubernetes: [{ clusterName: 'prod' }] },
  });
});
