/** The component tree of GET /api/canary/api/topology, as the issue 19
 * contract describes it. Declared here, in one place, until the call is in
 * the generated OpenAPI types (then these become aliases of those). */

export type Health = 'healthy' | 'unhealthy' | 'warning' | 'unknown';

/** Mission Control's Property: a value with `max` is a gauge. */
export interface Property {
  name: string;
  label?: string | null;
  text?: string | null;
  value?: number | null;
  unit?: string | null;
  max?: number | null;
  min?: number | null;
  type?: string | null;
  color?: string | null;
  icon?: string | null;
  tooltip?: string | null;
  headline?: boolean | null;
  order?: number | null;
}

export interface ComponentSummary {
  healthy: number;
  unhealthy: number;
  warning: number;
  unknown: number;
  checks: { healthy: number; unhealthy: number };
  /** Open insights by analysis type, then severity. */
  insights: Record<string, Record<string, number>>;
}

export interface TopologyComponent {
  id: string;
  topology_id: string | null;
  parent_id: string | null;
  name: string;
  text: string | null;
  type: string | null;
  icon: string | null;
  owner: string | null;
  tooltip: string | null;
  description: string | null;
  status: string | null;
  health: string | null;
  status_reason: string | null;
  hidden: boolean;
  labels: Record<string, string> | null;
  properties: Property[] | null;
  path: string | null;
  config_id: string | null;
  created_at: string;
  updated_at: string | null;
  /** Live direct children. */
  children: number;
  summary: ComponentSummary;
  teams: string[];
  /** Children to the requested depth, nested or flat. */
  components: TopologyComponent[];
}

export interface TopologyResponse {
  components: TopologyComponent[];
  healthStatuses: string[];
  types: string[];
  teams: string[];
  tags: Record<string, string[]>;
}

/** The call's query parameters (lists comma-separated on the wire). */
export interface TopologyQuery {
  id?: string;
  depth?: number;
  flatten?: boolean;
  status?: readonly string[];
  type?: readonly string[];
  /** `key=value` pairs. */
  labels?: readonly string[];
  owner?: string;
  team?: string;
  /** Include hidden components (the server's default: true). */
  hidden?: boolean;
}
