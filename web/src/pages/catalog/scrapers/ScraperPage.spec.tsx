// @vitest-environment jsdom
import { renderScreen } from '../../../testing/renderScreen';
import { cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { dbCount, dbSelect } from '../../../api/db';
import { type Rights } from '../../../lib/authorizer';
import ScraperPage from './ScraperPage';

vi.mock('../../../api/db', () => ({
  dbSelect: vi.fn(),
  dbCount: vi.fn(),
  dbUpdate: vi.fn(),
  dbInsert: vi.fn(),
  dbSoftDelete: vi.fn(),
}));

const WRITER: Rights = { config_scrapers: ['read', 'create', 'update', 'delete'], database: ['read'] };
const READER: Rights = { config_scrapers: ['read'], database: ['read'] };

function scraper(source: string) {
  return {
    id: 's1',
    name: 'east',
    namespace: 'default',
    spec: { schedule: '@hourly', kubernetes: [{ clusterName: 'east' }] },
    source,
    created_at: '2024-01-01T00:00:00Z',
    updated_at: '2024-01-01T00:00:00Z',
    deleted_at: null,
    created_by: null,
  };
}

beforeEach(() => {
  vi.mocked(dbCount).mockImplementation(async (relation) => (relation === 'configs' ? { rows: [], total: 12 } : { rows: [], total: 0 }));
});
afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

function renderPage(source: string | null, rights: Rights, url = '/catalog/scrapers/s1') {
  vi.mocked(dbSelect).mockResolvedValue((source ? [scraper(source)] : []) as never);
  renderScreen({ '/catalog/scrapers/:id': <ScraperPage /> }, url, rights);
}

it('edits a UI scraper: the form with Update and Delete, Scrape now, and the count of its items', async () => {
  renderPage('UI', WRITER);
  expect(await screen.findByRole('button', { name: 'Update' })).toBeTruthy();
  expect(screen.getByRole('button', { name: 'Delete' })).toBeTruthy();
  expect(screen.getByRole('button', { name: 'Scrape now' })).toBeTruthy();
  expect(await screen.findByText('12 items')).toBeTruthy();
  expect(screen.queryByText(/^Read-Only Mode/)).toBeNull();
  expect((screen.getByRole('textbox', { name: 'Cluster name' }) as HTMLInputElement).disabled).toBe(false);
  const [relation, query] = vi.mocked(dbCount).mock.calls.find(([r]) => r === 'configs') ?? [];
  expect(relation).toBe('configs');
  expect(query).toMatchObject({ scraper_id: 'eq.s1', deleted_at: 'is.null' });
});

it('shows a CRD scraper read-only with the banner, and Scrape now to a writer', async () => {
  renderPage('KubernetesCRD', WRITER);
  expect(
    await screen.findByText('Read-Only Mode: This resource is managed by Kubernetes CRD and cannot be edited from the UI.'),
  ).toBeTruthy();
  expect((screen.getByRole('textbox', { name: 'Cluster name' }) as HTMLInputElement).disabled).toBe(true);
  expect(screen.queryByRole('button', { name: 'Update' })).toBeNull();
  expect(screen.queryByRole('button', { name: 'Delete' })).toBeNull();
  expect(screen.getByRole('button', { name: 'Scrape now' })).toBeTruthy();
});

it('shows a UI scraper read-only, without the banner or Scrape now, to a reader', async () => {
  renderPage('UI', READER);
  expect((await screen.findByRole('textbox', { name: 'Cluster name' })) as HTMLInputElement).toHaveProperty('disabled', true);
  expect(screen.queryByText(/^Read-Only Mode/)).toBeNull();
  expect(screen.queryByRole('button', { name: 'Update' })).toBeNull();
  expect(screen.queryByRole('button', { name: 'Scrape now' })).toBeNull();
});

it('opens the Job History tab from the URL and keeps the tab in it', async () => {
  renderPage('UI', WRITER, '/catalog/scrapers/s1?tab=history');
  expect(await screen.findByRole('grid', { name: 'Resource job history' })).toBeTruthy();
  const [relation, query] = vi.mocked(dbCount).mock.calls.find(([r]) => r === 'job_histories') ?? [];
  expect(relation).toBe('job_histories');
  expect(query).toMatchObject({ resource_id: 'eq.s1' });
  fireEvent.click(screen.getByRole('tab', { name: 'Spec' }));
  expect(await screen.findByRole('button', { name: 'Update' })).toBeTruthy();
});

it('says No details found for a scraper that is not there', async () => {
  renderPage(null, WRITER);
  expect(await screen.findByText('No details found')).toBeTruthy();
});
