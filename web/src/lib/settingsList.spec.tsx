// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { afterEach, expect, it, vi } from 'vitest';
import { dbSelect } from '../api/db';
import { writePreference } from '../app/preferences';
import { useCanariesData } from '../pages/canaries/useCanariesData';
import { useIntegrationsData } from '../pages/integrations/useIntegrationsData';
import { useRulesData } from '../pages/rules/useRulesData';
import { useTeamsData } from '../pages/teams/useTeamsData';
import { AUTHOR, newestFirst, SETTINGS_LIST } from './settingsList';

vi.mock('../api/db', () => ({ dbSelect: vi.fn(), dbInsert: vi.fn(), dbUpdate: vi.fn(), dbSoftDelete: vi.fn() }));

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
  writePreference('showDeleted', false);
});

function wrapper({ children }: { children: ReactNode }) {
  return <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>{children}</QueryClientProvider>;
}

const at = (id: string, created_at: string | null) => ({ id, created_at });

it('merges lists newest first', () => {
  expect(
    newestFirst([
      [at('t2', '2024-03-01T00:00:00Z'), at('t1', '2024-01-01T00:00:00Z')],
      [at('s1', '2024-02-01T00:00:00+00:00'), at('s0', null)],
      [],
    ]).map((r) => r.id),
  ).toEqual(['t2', 's1', 't1', 's0']);
});

const LISTS: [string, () => { isSuccess: boolean }][] = [
  ['teams', () => useTeamsData().list],
  ['canaries', () => useCanariesData().list],
  ['incident_rules', () => useRulesData().list],
];

it.each(LISTS)('lists the newest live %s, at most 100, with their authors', async (relation, useList) => {
  vi.mocked(dbSelect).mockResolvedValue([]);
  const { result } = renderHook(useList, { wrapper });
  await waitFor(() => expect(result.current.isSuccess).toBe(true));
  expect(dbSelect).toHaveBeenCalledTimes(1);
  const [called, query] = vi.mocked(dbSelect).mock.calls[0] ?? [];
  expect(called).toBe(relation);
  expect(query).toMatchObject({ ...SETTINGS_LIST, embed: AUTHOR });
});

it('lists each kind of integration as its own list, merged newest first', async () => {
  vi.mocked(dbSelect).mockImplementation(async (_relation, query) => {
    const type = String((query as { integration_type?: string }).integration_type).replace('eq.', '');
    const day = { topology: '03', scraper: '01', logging_backend: '04', gitops: '02' }[type];
    return [{ id: type, integration_type: type, created_at: `2024-01-${day}T00:00:00Z` }] as never;
  });
  const { result } = renderHook(() => useIntegrationsData().list, { wrapper });
  await waitFor(() => expect(result.current.isSuccess).toBe(true));
  expect(result.current.data?.map((r) => r.id)).toEqual(['logging_backend', 'topology', 'gitops', 'scraper']);
  const queries = vi.mocked(dbSelect).mock.calls.map(([relation, query]) => [relation, query]);
  expect(queries.map(([, q]) => (q as { integration_type: string }).integration_type).sort()).toEqual([
    'eq.gitops',
    'eq.logging_backend',
    'eq.scraper',
    'eq.topology',
  ]);
  for (const [relation, query] of queries) {
    expect(relation).toBe('integrations_with_status');
    expect(query).toMatchObject({ ...SETTINGS_LIST, embed: AUTHOR });
  }
});

it('lists deleted integrations too when the preference says so', async () => {
  writePreference('showDeleted', true);
  vi.mocked(dbSelect).mockResolvedValue([]);
  const { result } = renderHook(() => useIntegrationsData().list, { wrapper });
  await waitFor(() => expect(result.current.isSuccess).toBe(true));
  for (const [, query] of vi.mocked(dbSelect).mock.calls) {
    expect(query).toMatchObject({ order: 'created_at.desc', limit: 100 });
    expect((query as { deleted_at?: string }).deleted_at).toBeUndefined();
  }
});
