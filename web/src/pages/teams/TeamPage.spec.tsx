// @vitest-environment jsdom
import { renderScreen } from '../../testing/renderScreen';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, expect, it, vi } from 'vitest';
import { dbInsert, dbSelect, dbUpdate } from '../../api/db';
import { type Rights } from '../../lib/authorizer';
import TeamPage from './TeamPage';
import TeamsPage from './TeamsPage';

vi.mock('../../api/db', () => ({
  dbSelect: vi.fn(),
  dbInsert: vi.fn(),
  dbUpdate: vi.fn(),
  dbDelete: vi.fn(),
  dbSoftDelete: vi.fn(),
}));

const WRITER: Rights = { database: ['read', 'create', 'update', 'delete'] };

const TEAM = {
  id: 't1',
  name: 'platform',
  icon: 'code',
  spec: {},
  source: 'UI',
  created_at: '2024-01-01T00:00:00Z',
  updated_at: '2024-01-01T00:00:00Z',
  deleted_at: null,
  created_by: null,
};
const MEMBER = { person: { id: 'p2', name: 'Sam', email: 'sam@example.com', avatar: null } };

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

function renderAt(url: string, source = 'UI') {
  vi.mocked(dbSelect).mockImplementation(async (relation) => {
    if (relation === 'teams') return [{ ...TEAM, source, team_members: [] }] as never;
    if (relation === 'team_members') return [MEMBER] as never;
    return [] as never;
  });
  renderScreen({ '/settings/teams': <TeamsPage />, '/settings/teams/:id': <TeamPage /> }, url, WRITER);
}

it('adds a team with an icon and stays on the list', async () => {
  vi.mocked(dbInsert).mockResolvedValue([{ ...TEAM, id: 't2', name: 'data' }] as never);
  renderAt('/settings/teams');
  fireEvent.click(await screen.findByRole('button', { name: 'Add Team' }));
  fireEvent.change(screen.getByRole('textbox', { name: 'Name' }), { target: { value: 'data' } });
  fireEvent.click(screen.getByRole('button', { name: 'Icon' }));
  fireEvent.click(screen.getByRole('option', { name: 'database' }));
  fireEvent.click(screen.getByRole('button', { name: 'Save' }));
  expect(await screen.findByText('data created successfully')).toBeTruthy();
  expect(dbInsert).toHaveBeenCalledWith('teams', { name: 'data', icon: 'database', spec: {} });
  expect(screen.queryByRole('dialog', { name: 'Add Team' })).toBeNull();
  expect(screen.getByRole('button', { name: 'Add Team' })).toBeTruthy();
});

it('updates a UI team from its icon picker and returns to the list', async () => {
  vi.mocked(dbUpdate).mockResolvedValue([TEAM] as never);
  renderAt('/settings/teams/t1');
  const icon = await screen.findByRole('button', { name: 'Icon' });
  expect(icon.textContent).toBe('code');
  fireEvent.click(icon);
  fireEvent.click(screen.getByRole('option', { name: 'server' }));
  fireEvent.click(screen.getByRole('button', { name: 'Update' }));
  expect(await screen.findByRole('button', { name: 'Add Team' })).toBeTruthy();
  expect(dbUpdate).toHaveBeenCalledWith('teams', { id: 'eq.t1' }, { icon: 'server', spec: {} });
});

it('returns to the list on Cancel', async () => {
  renderAt('/settings/teams/t1');
  fireEvent.click(await screen.findByRole('button', { name: 'Cancel' }));
  expect(await screen.findByRole('button', { name: 'Add Team' })).toBeTruthy();
});

it('shows a team from elsewhere read-only, its members locked, with the standard banner', async () => {
  renderAt('/settings/teams/t1', 'KubernetesCRD');
  expect(
    await screen.findByText('Read-Only Mode: This resource is managed by Kubernetes CRD and cannot be edited from the UI.'),
  ).toBeTruthy();
  expect((screen.getByRole('button', { name: 'Icon' }) as HTMLButtonElement).disabled).toBe(true);
  for (const name of ['Update', 'Cancel', 'Delete']) expect(screen.queryByRole('button', { name })).toBeNull();
  fireEvent.click(screen.getByRole('tab', { name: 'Members' }));
  expect(await screen.findByText('Sam')).toBeTruthy();
  expect(screen.queryByRole('button', { name: 'Add Members' })).toBeNull();
  expect(screen.queryByRole('button', { name: 'Actions for Sam' })).toBeNull();
});

it('lets a writer manage the members of a UI team', async () => {
  renderAt('/settings/teams/t1');
  fireEvent.click(await screen.findByRole('tab', { name: 'Members' }));
  await waitFor(() => expect(screen.getByRole('button', { name: 'Add Members' })).toBeTruthy());
  expect(screen.getByRole('button', { name: 'Actions for Sam' })).toBeTruthy();
});
