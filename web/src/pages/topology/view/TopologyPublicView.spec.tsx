// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, expect, it, vi } from 'vitest';
import { api } from '../../../api/client';
import { dbSelect } from '../../../api/db';
import { testComponent } from '../shared/testComponent';
import { fetchTopology } from '../shared/topologyApi';
import TopologyPublicView from './TopologyPublicView';

vi.mock('../../../api/client', () => ({ api: { GET: vi.fn() }, unwrap: (p: Promise<{ data: unknown }>) => p.then((r) => r.data) }));
vi.mock('../../../api/db', () => ({ dbSelect: vi.fn() }));
vi.mock('../shared/topologyApi', () => ({ fetchTopology: vi.fn() }));

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

function signedInWith(rights: Record<string, string[]>) {
  vi.mocked(api.GET).mockResolvedValue({
    data: { payload: { user: { id: 'u', name: 'Guest' }, roles: ['guest'], rights, limited_rights: {}, permissions: [] } },
  } as never);
  // The feature flags never arrive: the public view does not wait for them.
  vi.mocked(dbSelect).mockImplementation(((relation: string) =>
    relation === 'properties' ? new Promise(() => {}) : Promise.resolve([])) as never);
  vi.mocked(fetchTopology).mockResolvedValue({
    components: [testComponent({ id: 'c', name: 'orders' })],
    healthStatuses: [],
    types: [],
    teams: [],
    tags: {},
  });
}

function renderView() {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MemoryRouter initialEntries={['/view/topology/c']}>
        <Routes>
          <Route path="/view/topology/:id" element={<TopologyPublicView />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

it('shows the component to a caller with read on topologies, without waiting for the feature flags', async () => {
  signedInWith({ topologies: ['read'] });
  renderView();
  expect(await screen.findByRole('heading', { level: 2, name: /orders/ })).toBeTruthy();
  expect(screen.queryByRole('link', { name: 'Topology' })).toBeNull();
});

it('shows Unauthorized to a caller without read on topologies', async () => {
  signedInWith({ canaries: ['read'] });
  renderView();
  expect(await screen.findByRole('heading', { name: 'Unauthorized' })).toBeTruthy();
  expect(screen.getByText('You do not have permission to access this page')).toBeTruthy();
  expect(fetchTopology).not.toHaveBeenCalled();
});
