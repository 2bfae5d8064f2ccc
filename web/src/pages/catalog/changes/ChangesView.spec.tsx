// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter, useLocation } from 'react-router';
import { afterEach, expect, it, vi } from 'vitest';
import { api } from '../../../api/client';
import { dbSelect } from '../../../api/db';
import { SessionContext, type Session } from '../../../app/session';
import { createAuthorizer } from '../../../lib/authorizer';
import { ChangesView } from './ChangesView';

const READER = {
  user: { id: 'p1', name: 'Pat' },
  authorizer: createAuthorizer(['viewer'], { database: ['read'] }),
  isEnabled: () => true,
} as unknown as Session;

vi.mock('../../../api/client', async (original) => ({
  ...(await original<typeof import('../../../api/client')>()),
  api: { POST: vi.fn() },
}));
vi.mock('../../../api/db', () => ({ dbSelect: vi.fn() }));

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

const CHANGE = {
  id: 'ch1',
  config_id: 'cfg1',
  name: 'web',
  type: 'Kubernetes::Deployment',
  config_class: 'Deployment',
  tags: {},
  agent_id: '00000000-0000-0000-0000-000000000000',
  change_type: 'diff',
  severity: 'info',
  source: 'kubernetes',
  summary: 'spec.replicas: 2 → 3',
  external_created_by: 'alice',
  count: 1,
  first_observed: '2024-01-01T00:00:00Z',
  created_at: '2024-01-01T00:00:00Z',
};

function Location() {
  return <output aria-label="location">{useLocation().search}</output>;
}

function renderView(url: string, configId?: string) {
  vi.mocked(api.POST).mockResolvedValue({
    data: { changes: [CHANGE], total: 1050, total_capped: true },
    response: new Response(null, { status: 200 }),
  } as never);
  vi.mocked(dbSelect).mockImplementation(async (relation: string) => {
    if (relation === 'config_types') return [{ type: 'Kubernetes::Deployment' }];
    if (relation === 'change_types') return [{ change_type: 'diff' }];
    return [
      {
        ...CHANGE,
        details: { reason: 'scaled' },
        patches: [{ op: 'replace', path: '/spec/replicas', value: 3 }],
        diff: null,
        created_by: null,
      },
    ];
  });
  render(
    <SessionContext.Provider value={READER}>
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <MemoryRouter initialEntries={[url]}>
          <ChangesView configId={configId} />
          <Location />
        </MemoryRouter>
      </QueryClientProvider>
    </SessionContext.Provider>,
  );
}

it('searches with the URL state and shows a capped total as a lower bound', async () => {
  renderView('/catalog/changes?severity=info&sortBy=summary&page=2&pageSize=25');
  const table = await screen.findByRole('grid', { name: 'Changes' });
  expect(await within(table).findByText('spec.replicas: 2 → 3')).toBeTruthy();
  expect(within(table).getByRole('link', { name: /web/ }).getAttribute('href')).toBe('/catalog/cfg1');
  expect(screen.getAllByText('1,050+').length).toBeGreaterThan(0);
  const [path, init] = vi.mocked(api.POST).mock.calls[0] ?? [];
  expect(path).toBe('/api/catalog/changes');
  const body = (init as unknown as { body: Record<string, unknown> }).body;
  expect(body).toMatchObject({ severity: 'info', sort_by: 'summary', page: 2, page_size: 25, include_deleted_configs: false });
  expect(body).not.toHaveProperty('id');
  expect(typeof body.from).toBe('string');
});

it('sorts from a column header, back to the first page', async () => {
  renderView('/catalog/changes?page=3');
  const table = await screen.findByRole('grid', { name: 'Changes' });
  fireEvent.click(within(table).getByRole('button', { name: 'Severity' }));
  expect(screen.getByLabelText('location').textContent).toBe('?sortBy=-severity');
});

it('opens a change with its diff, unified or side by side', async () => {
  renderView('/catalog/cfg1/changes', 'cfg1');
  const table = await screen.findByRole('grid', { name: 'Changes' });
  expect(screen.getByRole('button', { name: 'Related changes' })).toBeTruthy();
  fireEvent.click(await within(table).findByText('spec.replicas: 2 → 3'));
  const dialog = await screen.findByRole('dialog', { name: 'Change details' });
  expect(screen.getByLabelText('location').textContent).toBe('?change=ch1');
  expect(await within(dialog).findByRole('table', { name: 'Unified diff' })).toBeTruthy();
  expect(within(dialog).getByText('@@ replace spec.replicas @@')).toBeTruthy();
  fireEvent.click(within(dialog).getByRole('button', { name: 'Side by side' }));
  expect(within(dialog).getByRole('table', { name: 'Side by side diff' })).toBeTruthy();
  const body = (vi.mocked(api.POST).mock.calls[0]?.[1] as unknown as { body: Record<string, unknown> }).body;
  expect(body).toMatchObject({ id: 'cfg1' });
});
