// @vitest-environment jsdom
import { renderScreen } from '../../../testing/renderScreen';
import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { dbCount, dbSelect, dbUpdate } from '../../../api/db';
import { type Rights } from '../../../lib/authorizer';
import TopologiesSettingsPage from './TopologiesSettingsPage';
import TopologySettingsPage from './TopologySettingsPage';

vi.mock('../../../api/db', () => ({
  dbSelect: vi.fn(),
  dbCount: vi.fn(),
  dbUpdate: vi.fn(),
  dbSoftDelete: vi.fn(),
}));

const WRITER: Rights = { topologies: ['read', 'create', 'update', 'delete'], database: ['read'] };
const READER: Rights = { topologies: ['read'], database: ['read'] };

function topology(id: string, source: string) {
  return {
    id,
    name: `shop-${id}`,
    namespace: 'default',
    labels: { team: 'payments' },
    spec: { type: 'Application', schedule: '@every 5m' },
    schedule: '@every 5m',
    source,
    created_at: '2024-01-01T00:00:00Z',
    updated_at: '2024-01-02T00:00:00Z',
    deleted_at: null,
    created_by: null,
  };
}

beforeEach(() => {
  vi.mocked(dbCount).mockResolvedValue({ rows: [], total: 0 } as never);
});
afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

function renderAt(url: string, rights: Rights) {
  renderScreen(
    {
      '/settings/topology': <TopologiesSettingsPage />,
      '/settings/topology/:id': <TopologySettingsPage />,
      '/settings/integrations': <p>Integrations list</p>,
    },
    url,
    rights,
  );
}

it('lists a page of live topologies with schedule, last run and source, linking to each editor', async () => {
  vi.mocked(dbCount).mockResolvedValue({
    rows: [topology('t1', 'UI'), { ...topology('t2', 'KubernetesCRD'), schedule: null }],
    total: 2,
  } as never);
  vi.mocked(dbSelect).mockResolvedValue([{ id: 't1', job_status: 'FAILED', job_time_start: '2024-01-01T00:00:00Z' }] as never);
  renderAt('/settings/topology?search=shop', READER);
  const table = await screen.findByRole('grid', { name: 'Topologies' });
  const link = await within(table).findByRole('link', { name: 'shop-t1' });
  expect(link.getAttribute('href')).toBe('/settings/topology/t1');
  const first = link.closest('tr') as HTMLElement;
  expect(within(first).getByText('@every 5m')).toBeTruthy();
  expect(await within(first).findByText('FAILED')).toBeTruthy();
  const second = within(table).getByRole('link', { name: 'shop-t2' }).closest('tr') as HTMLElement;
  expect(within(second).getByText('Default')).toBeTruthy();
  expect(within(second).getByText('CRD')).toBeTruthy();
  const [relation, query] = vi.mocked(dbCount).mock.calls[0] ?? [];
  expect(relation).toBe('topologies');
  expect(query).toMatchObject({ deleted_at: 'is.null', name: 'ilike.*shop*' });
  expect(vi.mocked(dbSelect).mock.calls[0]?.[1]).toMatchObject({ integration_type: 'eq.topology', id: 'in.(t1,t2)' });
});

it('updates a UI topology and goes to the integrations list', async () => {
  vi.mocked(dbSelect).mockResolvedValue([topology('t1', 'UI')] as never);
  vi.mocked(dbUpdate).mockResolvedValue([] as never);
  renderAt('/settings/topology/t1', WRITER);
  const update = await screen.findByRole('button', { name: 'Update' });
  expect(screen.getByRole('button', { name: 'Delete' })).toBeTruthy();
  expect((screen.getByRole('textbox', { name: 'Name' }) as HTMLInputElement).disabled).toBe(true);
  fireEvent.click(update);
  expect(await screen.findByText('Integrations list')).toBeTruthy();
  expect(vi.mocked(dbUpdate).mock.calls[0]).toEqual([
    'topologies',
    { id: 'eq.t1' },
    { labels: { team: 'payments' }, spec: { type: 'Application', schedule: '@every 5m' }, schedule: '@every 5m' },
  ]);
});

it('edits the schedule and the icon in the spec, and ignores invalid JSON labels', async () => {
  vi.mocked(dbSelect).mockResolvedValue([topology('t1', 'UI')] as never);
  vi.mocked(dbUpdate).mockResolvedValue([] as never);
  renderAt('/settings/topology/t1', WRITER);
  const update = await screen.findByRole('button', { name: 'Update' });
  expect((screen.getByRole('textbox', { name: 'Namespace' }) as HTMLInputElement).disabled).toBe(true);
  fireEvent.click(screen.getByRole('button', { name: 'Schedule' }));
  fireEvent.click(screen.getByRole('option', { name: '@daily' }));
  fireEvent.click(screen.getByRole('button', { name: 'Icon' }));
  // Each choice shows its icon, and so does the toggle once chosen.
  expect(screen.getByRole('option', { name: 'postgres' }).querySelector('.pf-v6-c-menu__item-icon svg')).toBeTruthy();
  fireEvent.click(screen.getByRole('option', { name: 'postgres' }));
  expect(screen.getByRole('button', { name: 'Icon' }).querySelector('.pf-v6-c-menu-toggle__icon svg')).toBeTruthy();
  const spec = screen.getByRole('textbox', { name: 'Spec' }) as HTMLTextAreaElement;
  expect(spec.value).toContain('schedule: "@daily"');
  expect(spec.value).toContain('icon: postgres');
  fireEvent.change(screen.getByRole('textbox', { name: 'Labels' }), { target: { value: '{"team": ' } });
  expect(screen.getByText('Not valid JSON: these labels are ignored and the saved ones kept')).toBeTruthy();
  fireEvent.click(update);
  expect(await screen.findByText('Integrations list')).toBeTruthy();
  expect(vi.mocked(dbUpdate).mock.calls[0]?.[2]).toEqual({
    spec: { type: 'Application', schedule: '@daily', icon: 'postgres' },
    schedule: '@daily',
  });
});

it('refuses a spec the Topology schema refuses', async () => {
  vi.mocked(dbSelect).mockResolvedValue([topology('t1', 'UI')] as never);
  renderAt('/settings/topology/t1', WRITER);
  const update = await screen.findByRole('button', { name: 'Update' });
  fireEvent.change(screen.getByRole('textbox', { name: 'Spec' }), { target: { value: 'type: App\ncompnents: []\n' } });
  expect(screen.getByText('compnents: unknown field')).toBeTruthy();
  expect((update as HTMLButtonElement).disabled).toBe(true);
});

it('shows a CRD topology read-only with the banner and its source', async () => {
  vi.mocked(dbSelect).mockResolvedValue([topology('t2', 'KubernetesCRD')] as never);
  renderAt('/settings/topology/t2', WRITER);
  expect(
    await screen.findByText('Read-Only Mode: This resource is managed by Kubernetes CRD and cannot be edited from the UI.'),
  ).toBeTruthy();
  expect(screen.getByText('Kubernetes CRD Topology default/shop-t2')).toBeTruthy();
  expect(screen.queryByRole('button', { name: 'Update' })).toBeNull();
  expect(screen.queryByRole('button', { name: 'Delete' })).toBeNull();
});

it('shows a UI topology read-only without the banner to a reader', async () => {
  vi.mocked(dbSelect).mockResolvedValue([topology('t1', 'UI')] as never);
  renderAt('/settings/topology/t1', READER);
  expect(await screen.findByText('Source')).toBeTruthy();
  expect(screen.queryByText(/^Read-Only Mode/)).toBeNull();
  expect(screen.queryByRole('button', { name: 'Update' })).toBeNull();
});

it('opens the Job History tab from the URL with the topology runs', async () => {
  vi.mocked(dbSelect).mockResolvedValue([topology('t1', 'UI')] as never);
  renderAt('/settings/topology/t1?tab=history', WRITER);
  expect(await screen.findByRole('grid', { name: 'Resource job history' })).toBeTruthy();
  const [, query] = vi.mocked(dbCount).mock.calls.find(([r]) => r === 'job_histories') ?? [];
  expect(query).toMatchObject({ resource_id: 'eq.t1' });
});

it('says No resources found for a topology that is not there', async () => {
  vi.mocked(dbSelect).mockResolvedValue([] as never);
  renderAt('/settings/topology/none', WRITER);
  expect(await screen.findByText('No resources found')).toBeTruthy();
});
