// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter, useLocation } from 'react-router';
import { afterEach, expect, it, vi } from 'vitest';
import { dbCount, dbSelect } from '../../../api/db';
import { InsightsView } from './InsightsView';

vi.mock('../../../api/db', () => ({ dbCount: vi.fn(), dbSelect: vi.fn() }));

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

function Location() {
  return <output aria-label="location">{useLocation().search}</output>;
}

it('lists one item’s analyses and filters them through the URL', async () => {
  vi.mocked(dbSelect).mockResolvedValue([{ analyzer: 'restarts' }] as never);
  vi.mocked(dbCount).mockResolvedValue({
    rows: [
      {
        id: 'a1',
        config_id: 'c1',
        config_name: 'web',
        config_type: 'Kubernetes::Pod',
        analyzer: 'restarts',
        analysis_type: 'reliability',
        severity: 'high',
        status: 'open',
        summary: 'restarting',
        message: 'Pod restarted 5 times',
        first_observed: '2024-01-01T00:00:00Z',
        last_observed: '2024-01-02T00:00:00Z',
      },
    ],
    total: 1,
  } as never);
  render(
    <QueryClientProvider client={new QueryClient()}>
      <MemoryRouter initialEntries={['/catalog/c1/insights?page=2']}>
        <InsightsView configId="c1" />
        <Location />
      </MemoryRouter>
    </QueryClientProvider>,
  );
  const table = await screen.findByRole('grid', { name: 'Insights' });
  expect(await within(table).findByText('Pod restarted 5 times')).toBeTruthy();
  expect(within(table).getByRole('link', { name: /web/ }).getAttribute('href')).toBe('/catalog/c1');
  expect(vi.mocked(dbCount).mock.calls[0]?.[1]).toMatchObject({ config_id: 'eq.c1', offset: 50 });

  fireEvent.click(within(screen.getByRole('group', { name: 'Filters' })).getByRole('button', { name: 'Severity' }));
  fireEvent.click(await screen.findByRole('checkbox', { name: 'high' }));
  expect(screen.getByLabelText('location').textContent).toBe('?severity=high');
});
