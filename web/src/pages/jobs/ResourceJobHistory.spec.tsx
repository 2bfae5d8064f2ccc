// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, expect, it, vi } from 'vitest';
import { dbCount } from '../../api/db';
import { ResourceJobHistory } from './ResourceJobHistory';
import type { JobHistoryRow } from './jobHistory';

vi.mock('../../api/db', () => ({ dbCount: vi.fn(), dbSelect: vi.fn(async () => []) }));

afterEach(cleanup);

const ROW: JobHistoryRow = {
  id: 'j1',
  name: 'CanaryRun',
  status: 'FAILED',
  time_start: '2024-01-01T00:00:00Z',
  duration_millis: 1500,
  success_count: 1,
  error_count: 2,
  resource_id: 'c1',
  resource_type: 'canary',
  details: null,
  created_at: '2024-01-01T00:00:00Z',
  agent: { id: 'a', name: 'local' },
};

it('lists the runs of one resource, of any status and time, without the resource column', async () => {
  vi.mocked(dbCount).mockResolvedValue({ rows: [ROW], total: 1 });
  render(
    <QueryClientProvider client={new QueryClient()}>
      <MemoryRouter>
        <ResourceJobHistory resourceId="c1" />
      </MemoryRouter>
    </QueryClientProvider>,
  );
  const table = await screen.findByRole('grid', { name: 'Resource job history' });
  expect(await within(table).findByText('CanaryRun')).toBeTruthy();
  expect(within(table).getByText('1.5s')).toBeTruthy();
  expect(within(table).queryByRole('columnheader', { name: 'Resource' })).toBeNull();
  const [relation, query] = vi.mocked(dbCount).mock.calls[0] ?? [];
  expect(relation).toBe('job_histories');
  expect(query).toMatchObject({ resource_id: 'eq.c1', order: 'created_at.desc,id', limit: 50, offset: 0 });
  expect(query).not.toHaveProperty('status');
  expect(query).not.toHaveProperty('and');
});
