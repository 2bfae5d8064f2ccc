// @vitest-environment jsdom
import { renderScreen } from '../../testing/renderScreen';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { useLocation } from 'react-router';
import { afterEach, expect, it, vi } from 'vitest';
import { dbSelect } from '../../api/db';
import RulesPage from './RulesPage';

vi.mock('../../api/db', () => ({
  dbSelect: vi.fn(),
  dbCount: vi.fn(),
  dbInsert: vi.fn(),
  dbUpdate: vi.fn(),
  dbSoftDelete: vi.fn(),
}));

const RULE = {
  id: 'n1',
  name: 'pager',
  namespace: 'default',
  events: ['check.failed'],
  title: 'Check failed',
  template: null,
  filter: null,
  person_id: null,
  team_id: null,
  playbook_id: null,
  custom_services: [{ url: 'generic+http://127.0.0.1:9/hook' }],
  properties: null,
  repeat_interval: '4h',
  group_by: null,
  group_by_interval: null,
  wait_for: null,
  wait_for_eval_period: null,
  inhibitions: null,
  fallback_person_id: null,
  fallback_team_id: null,
  fallback_playbook_id: null,
  fallback_custom_services: null,
  fallback_delay: null,
  error: null,
  error_at: null,
  source: 'UI',
  created_by: null,
  created_at: '2024-01-01T00:00:00Z',
  updated_at: '2024-01-01T00:00:00Z',
  deleted_at: null,
};
const SUMMARY = {
  id: 'n1',
  name: 'pager',
  namespace: 'default',
  source: 'UI',
  events: ['check.failed'],
  recipients: ['generic+http://127.0.0.1:9/hook'],
  sent: 1,
  failed: 0,
  pending: 0,
  last_sent: null,
  last_failed: null,
  error: null,
};

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

function Search() {
  return <output aria-label="Search">{useLocation().search}</output>;
}

function renderAt(url: string) {
  vi.mocked(dbSelect).mockImplementation(
    async (relation) => (relation === 'notifications_summary' ? [SUMMARY] : relation === 'notifications' ? [RULE] : []) as never,
  );
  renderScreen(
    {
      '/notifications/rules': (
        <>
          <RulesPage />
          <Search />
        </>
      ),
    },
    url,
    { notifications: ['read', 'create', 'update', 'delete'] },
  );
}

const search = () => screen.getByRole('status', { name: 'Search', hidden: true }).textContent;

it('opens the rule the URL names, and closing it clears the id', async () => {
  renderAt('/notifications/rules?id=n1');
  expect(((await screen.findByRole('textbox', { name: 'Repeat interval' })) as HTMLInputElement).value).toBe('4h');
  expect(screen.getByRole('dialog', { name: 'Notification rule: pager' })).toBeTruthy();
  fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
  await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  expect(search()).toBe('');
});

it('puts the rule opened from the list, or a new one, in the URL', async () => {
  renderAt('/notifications/rules');
  fireEvent.click(await screen.findByText('pager'));
  expect(await screen.findByRole('dialog', { name: 'Notification rule: pager' })).toBeTruthy();
  expect(search()).toBe('?id=n1');
  fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
  await waitFor(() => expect(search()).toBe(''));
  fireEvent.click(screen.getByRole('button', { name: 'Add rule' }));
  expect(await screen.findByRole('dialog', { name: 'Add notification rule' })).toBeTruthy();
  expect(search()).toBe('?id=new');
});
