// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, expect, it, vi } from 'vitest';
import { dbSelect } from '../../../api/db';
import { ApiError } from '../../../api/errors';
import { testComponent } from '../shared/testComponent';
import { fetchTopology } from '../shared/topologyApi';
import { ComponentView } from './ComponentView';

vi.mock('../../../api/db', () => ({ dbSelect: vi.fn() }));
vi.mock('../shared/topologyApi', () => ({ fetchTopology: vi.fn() }));

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

function renderView(base: '/topology' | '/view/topology', search = '') {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MemoryRouter initialEntries={[`${base}/c${search}`]}>
        <ComponentView id="c" base={base} />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

const component = testComponent({
  id: 'c',
  name: 'orders',
  type: 'Namespace',
  owner: 'sre',
  status: 'warning',
  health: 'warning',
  status_reason: '1 of 2 pods unhealthy',
  path: 'root.mid',
  components: [testComponent({ id: 'k1', name: 'orders-api' }), testComponent({ id: 'k2', name: 'orders-db', health: 'unhealthy' })],
});

function mockData() {
  vi.mocked(fetchTopology).mockResolvedValue({ components: [component], healthStatuses: [], types: [], teams: [], tags: {} });
  const rows: Record<string, unknown[]> = {
    component_names: [
      { id: 'mid', name: 'cluster-a', icon: null },
      { id: 'root', name: 'estate', icon: null },
    ],
    team_components: [{ role: null, team: { id: 't1', name: 'sre' } }],
  };
  vi.mocked(dbSelect).mockImplementation((async (relation: string) => rows[relation] ?? []) as never);
}

it('shows the component, its breadcrumbs root first, its children as cards and the side panel', async () => {
  mockData();
  renderView('/topology');
  expect(await screen.findByRole('heading', { level: 2, name: /orders/ })).toBeTruthy();
  expect(vi.mocked(fetchTopology).mock.calls[0]?.[0]).toMatchObject({ id: 'c', depth: 1, hidden: undefined });

  const crumbs = screen.getByRole('navigation', { name: 'Breadcrumbs' });
  await within(crumbs).findByRole('link', { name: /estate/ });
  expect(
    within(crumbs)
      .getAllByRole('link')
      .map((l) => [l.textContent?.trim(), l.getAttribute('href')]),
  ).toEqual([
    ['Topology', '/topology'],
    ['estate', '/topology/root'],
    ['cluster-a', '/topology/mid'],
  ]);
  expect(vi.mocked(dbSelect).mock.calls.find(([r]) => r === 'component_names')?.[1]).toMatchObject({ id: 'in.(root,mid)' });

  expect(within(screen.getByRole('group', { name: 'Status' })).getByText('Warning: 1 of 2 pods unhealthy')).toBeTruthy();
  expect(within(screen.getByRole('group', { name: 'Owner' })).getByText('sre')).toBeTruthy();
  expect(screen.getByRole('link', { name: 'Download snapshot' }).getAttribute('href')).toBe('/api/snapshot/topology/c');

  const cards = screen.getByRole('list', { name: 'Components' });
  expect(within(cards).getByRole('link', { name: 'orders-db' }).getAttribute('href')).toBe('/topology/k2');
  const panel = screen.getByRole('complementary', { name: 'Details' });
  expect(await within(within(panel).getByRole('region', { name: 'Teams' })).findByText('sre')).toBeTruthy();
});

it('filters the children as the URL says, with the dashboard’s filters', async () => {
  mockData();
  renderView('/topology', '?type=Pod&health=unhealthy&showHiddenComponents=no');
  await screen.findByRole('heading', { level: 2, name: /orders/ });
  expect(vi.mocked(fetchTopology).mock.calls[0]?.[0]).toMatchObject({
    id: 'c',
    depth: 1,
    type: ['Pod'],
    status: ['unhealthy'],
    hidden: false,
  });
  expect(screen.getByRole('switch', { name: 'Show hidden components' })).toHaveProperty('checked', false);
});

it('keeps the public view’s links in the public view, with no dashboard crumb', async () => {
  mockData();
  renderView('/view/topology');
  const crumbs = await screen.findByRole('navigation', { name: 'Breadcrumbs' });
  await within(crumbs).findByRole('link', { name: /estate/ });
  expect(
    within(crumbs)
      .getAllByRole('link')
      .map((l) => l.getAttribute('href')),
  ).toEqual(['/view/topology/root', '/view/topology/mid']);
  expect(
    within(screen.getByRole('list', { name: 'Components' }))
      .getByRole('link', { name: 'orders-api' })
      .getAttribute('href'),
  ).toBe('/view/topology/k1');
});

it('shows the not-found state for an unknown or malformed id', async () => {
  vi.mocked(fetchTopology).mockRejectedValue(new ApiError(400, { message: 'bad id' }));
  vi.mocked(dbSelect).mockResolvedValue([] as never);
  renderView('/topology');
  expect(await screen.findByRole('heading', { name: 'Component not found' })).toBeTruthy();
});

it('shows the error panel when the call fails', async () => {
  vi.mocked(fetchTopology).mockRejectedValue(new ApiError(500, { message: 'database down' }));
  vi.mocked(dbSelect).mockResolvedValue([] as never);
  renderView('/topology');
  expect(await screen.findByText('database down')).toBeTruthy();
});
