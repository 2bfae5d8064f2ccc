// @vitest-environment jsdom
import type { UseQueryResult } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter, useLocation } from 'react-router';
import { afterEach, expect, it, vi } from 'vitest';
import { ToastProvider } from '../../../app/toast';
import { ConfigTab } from './ConfigTab';

afterEach(cleanup);

function Location() {
  return <output aria-label="location">{useLocation().search}</output>;
}

function renderTab(url: string, data: unknown) {
  const query = { data, isLoading: false, error: null } as UseQueryResult<unknown>;
  return render(
    <MemoryRouter initialEntries={[url]}>
      <ToastProvider>
        <ConfigTab config={query} />
        <Location />
      </ToastProvider>
    </MemoryRouter>,
  );
}

it('shows YAML, switches to JSON in the URL, and copies what it shows', async () => {
  const writeText = vi.fn().mockResolvedValue(undefined);
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
  renderTab('/catalog/x', { metadata: { name: 'web' }, data: { password: '******' } });
  expect(screen.getByRole('region', { name: 'Config as YAML' }).textContent).toBe('metadata:\n  name: web\ndata:\n  password: "******"\n');

  fireEvent.click(screen.getByRole('button', { name: 'JSON' }));
  expect(screen.getByRole('region', { name: 'Config as JSON' }).textContent).toContain('"name": "web"');
  expect(screen.getByRole('status', { name: 'location' }).textContent).toBe('?format=json');

  fireEvent.click(screen.getByRole('button', { name: 'Copy config' }));
  await waitFor(() => expect(writeText).toHaveBeenCalledWith(expect.stringContaining('"name": "web"')));
  expect(await screen.findByText('Copied to clipboard')).toBeTruthy();
});

it('shows a large config without a worker, and No data available without one', () => {
  const big = { items: Array.from({ length: 3000 }, (_, i) => ({ name: `item-${i}`, image: 'registry/app:1.2.3' })) };
  renderTab('/catalog/x?format=json', big);
  expect(screen.getByRole('region', { name: 'Config as JSON' }).textContent?.length).toBeGreaterThan(100_000);
  cleanup();
  renderTab('/catalog/x', null);
  expect(screen.getByRole('heading', { name: 'No data available' })).toBeTruthy();
});
