import type { TopologyComponent } from './types';

/** A component as the API answers, with `patch` over it (for tests). */
export function testComponent(patch: Partial<TopologyComponent> = {}): TopologyComponent {
  return {
    id: '00000000-0000-0000-0000-000000000001',
    topology_id: '00000000-0000-0000-0000-0000000000aa',
    parent_id: null,
    name: 'payments',
    text: null,
    type: 'Application',
    icon: null,
    owner: null,
    tooltip: null,
    description: null,
    status: 'healthy',
    health: 'healthy',
    status_reason: null,
    hidden: false,
    labels: {},
    properties: [],
    path: '',
    config_id: null,
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
    children: 0,
    summary: { healthy: 0, unhealthy: 0, warning: 0, unknown: 0, checks: { healthy: 0, unhealthy: 0 }, insights: {} },
    teams: [],
    components: [],
    ...patch,
  };
}
