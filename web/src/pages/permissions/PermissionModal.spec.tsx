// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, expect, it, vi } from 'vitest';
import type { Schemas } from '../../api/client';
import { dbSelect } from '../../api/db';
import { SessionContext } from '../../app/session';
import { ToastProvider } from '../../app/toast';
import { createAuthorizer } from '../../lib/authorizer';
import { PermissionModal } from './PermissionModal';

vi.mock('../../api/db', () => ({
  dbSelect: vi.fn(),
  dbCount: vi.fn(),
  dbInsert: vi.fn(),
  dbUpdate: vi.fn(),
  dbDelete: vi.fn(),
}));

const PERMISSION = {
  id: 'perm1',
  action: 'read',
  deny: false,
  description: 'Lets the team read the catalog',
  object: 'catalog',
  subject: 'pt',
  subject_type: 'team',
  team_id: 'pt',
  person_id: null,
  notification_id: null,
  component_id: null,
  config_id: null,
  canary_id: null,
  playbook_id: null,
  connection_id: null,
  object_selector: null,
  until: null,
  created_at: '2024-01-01T00:00:00Z',
  updated_at: '2024-01-01T00:00:00Z',
};

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

function renderModal(source: string) {
  vi.mocked(dbSelect).mockImplementation(
    async (relation) =>
      (relation === 'permissions' ? [{ ...PERMISSION, source }] : relation === 'teams' ? [{ id: 'pt', name: 'platform' }] : []) as never,
  );
  const session = {
    user: { id: 'p1', name: 'Pat' } as Schemas['Person'],
    authorizer: createAuthorizer(['admin'], {}),
    isEnabled: () => true,
  };
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <SessionContext.Provider value={session}>
        <ToastProvider>
          <MemoryRouter>
            <PermissionModal id="perm1" onClose={() => undefined} />
          </MemoryRouter>
        </ToastProvider>
      </SessionContext.Provider>
    </QueryClientProvider>,
  );
}

const FIELDS = ['Subject type', 'Subject', 'Resource type', 'Resource', 'Action'];

it.each(['KubernetesCRD', 'ConfigFile'])('opens a permission from %s read-only, with the standard banner', async (source) => {
  renderModal(source);
  expect(await screen.findByText(/^Read-Only Mode: This resource is managed by .+ and cannot be edited from the UI\.$/)).toBeTruthy();
  for (const name of FIELDS) expect((screen.getByRole('button', { name }) as HTMLButtonElement).disabled).toBe(true);
  expect((screen.getByRole('switch', { name: 'Deny' }) as HTMLInputElement).disabled).toBe(true);
  expect((screen.getByRole('textbox', { name: 'Description' }) as HTMLTextAreaElement).disabled).toBe(true);
  expect(screen.queryByRole('button', { name: 'Save' })).toBeNull();
  expect(screen.queryByRole('button', { name: 'Delete' })).toBeNull();
  expect(screen.getAllByRole('button', { name: 'Close' }).length).toBeGreaterThan(0);
});

it('opens a UI permission editable, with Save and Delete and no banner', async () => {
  renderModal('UI');
  expect(await screen.findByRole('button', { name: 'Save' })).toBeTruthy();
  expect(screen.getByRole('button', { name: 'Delete' })).toBeTruthy();
  expect(screen.queryByText(/^Read-Only Mode/)).toBeNull();
  for (const name of FIELDS) expect((screen.getByRole('button', { name }) as HTMLButtonElement).disabled).toBe(false);
  expect((screen.getByRole('textbox', { name: 'Description' }) as HTMLTextAreaElement).disabled).toBe(false);
});
