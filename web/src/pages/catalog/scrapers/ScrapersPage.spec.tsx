// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, expect, it, vi } from 'vitest';
import type { Schemas } from '../../../api/client';
import { dbCount, dbSelect } from '../../../api/db';
import { SessionContext } from '../../../app/session';
import { ToastProvider } from '../../../app/toast';
import { createAuthorizer, type Rights } from '../../../lib/authorizer';
import ScrapersPage from './ScrapersPage';

vi.mock('../../../api/db', () => ({ dbSelect: vi.fn(), dbCount: vi.fn(), dbInsert: vi.fn() }));

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

const ROWS = [
  {
    id: 's1',
    name: 'east',
    namespace: 'default',
    spec: { schedule: '@hourly', kubernetes: [{ clusterName: 'east' }], aws: [{}] },
    source: 'UI',
    created_at: '2024-01-01T00:00:00Z',
    updated_at: '2024-01-01T00:00:00Z',
  },
  {
    id: 's2',
    name: 'west',
    namespace: 'ops',
    spec: { file: [{ paths: ['a.yaml'] }] },
    source: 'KubernetesCRD',
    created_at: '2024-01-01T00:00:00Z',
    updated_at: '2024-01-01T00:00:00Z',
  },
];

function renderList(rights: Rights, url = '/catalog/scrapers?page=2&search=e') {
  vi.mocked(dbCount).mockResolvedValue({ rows: ROWS, total: 52 } as never);
  vi.mocked(dbSelect).mockResolvedValue([
    {
      id: 's1',
      job_status: 'WARNING',
      job_time_start: '2024-01-01T00:00:00Z',
      job_error_count: 1,
      job_details: { scrape_summary: { 'Kubernetes::Pod': { added: 2, unchanged: 5 } } },
    },
  ] as never);
  const session = {
    user: { id: 'p1', name: 'Pat' } as Schemas['Person'],
    authorizer: createAuthorizer(['editor'], rights),
    isEnabled: () => true,
  };
  render(
    <QueryClientProvider client={new QueryClient()}>
      <SessionContext.Provider value={session}>
        <ToastProvider>
          <MemoryRouter initialEntries={[url]}>
            <ScrapersPage />
          </MemoryRouter>
        </ToastProvider>
      </SessionContext.Provider>
    </QueryClientProvider>,
  );
}

it('lists a page of live scrapers with types, schedule, last run and source, linking to each', async () => {
  renderList({ config_scrapers: ['read', 'create', 'update', 'delete'] });
  const table = await screen.findByRole('grid', { name: 'Scrapers' });
  const east = (await within(table).findByRole('link', { name: 'east' })).closest('tr') as HTMLElement;
  expect(within(east).getByRole('link', { name: 'east' }).getAttribute('href')).toBe('/catalog/scrapers/s1');
  expect(within(east).getByText('Kubernetes')).toBeTruthy();
  expect(within(east).getByText('AWS (not run)')).toBeTruthy();
  expect(within(east).getByText('@hourly')).toBeTruthy();
  expect(within(east).getByText('WARNING')).toBeTruthy();
  expect(await within(east).findByText('2 added · 5 unchanged · 1 error')).toBeTruthy();
  expect(within(east).getByRole('button', { name: 'Scrape now' })).toBeTruthy();
  const west = within(table).getByRole('link', { name: 'west' }).closest('tr') as HTMLElement;
  expect(within(west).getByText('File')).toBeTruthy();
  expect(within(west).getByText('Default')).toBeTruthy();
  expect(within(west).getByText('CRD')).toBeTruthy();
  expect(screen.getByRole('button', { name: 'Add Scraper' })).toBeTruthy();

  const [relation, query] = vi.mocked(dbCount).mock.calls[0] ?? [];
  expect(relation).toBe('config_scrapers');
  expect(query).toMatchObject({ deleted_at: 'is.null', name: 'ilike.*e*', order: 'name,namespace,id', limit: 50, offset: 50 });
  const [runsRelation, runsQuery] = vi.mocked(dbSelect).mock.calls[0] ?? [];
  expect(runsRelation).toBe('integrations_with_status');
  expect(runsQuery).toMatchObject({ integration_type: 'eq.scraper', id: 'in.(s1,s2)' });
});

it('offers neither Add nor Scrape now to a reader', async () => {
  renderList({ config_scrapers: ['read'] });
  const table = await screen.findByRole('grid', { name: 'Scrapers' });
  await within(table).findByRole('link', { name: 'east' });
  expect(screen.queryByRole('button', { name: 'Add Scraper' })).toBeNull();
  expect(screen.queryByRole('button', { name: 'Scrape now' })).toBeNull();
});
