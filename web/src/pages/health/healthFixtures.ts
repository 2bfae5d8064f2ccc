/** Checks for the Health page's unit tests. */
import type { CheckSummary } from './healthFilter';

let next = 0;

export function check(fields: Omit<Partial<CheckSummary>, 'labels'> & { labels?: Record<string, unknown> } = {}): CheckSummary {
  next++;
  return {
    id: `id-${String(next).padStart(4, '0')}`,
    canary_id: 'canary',
    canary_name: 'canary',
    canary_namespace: 'default',
    agent_id: '00000000-0000-0000-0000-000000000000',
    name: `check-${next}`,
    namespace: 'default',
    type: 'http',
    status: 'healthy',
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
    uptime: { passed: 10, failed: 0 },
    latency: {},
    ...fields,
    labels: (fields.labels ?? {}) as CheckSummary['labels'],
  };
}
