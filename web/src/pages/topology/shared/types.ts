/** The component tree of GET /api/canary/api/topology (the generated OpenAPI types). */
import type { Schemas } from '../../../api/client';

export type Health = 'healthy' | 'unhealthy' | 'warning' | 'unknown';

/** Mission Control's Property: a value with `max` is a gauge. */
export type Property = Schemas['Property'];
export type ComponentSummary = Schemas['ComponentSummary'];
export type TopologyComponent = Schemas['Component'];
/** The components and the facets of the filters. */
export type TopologyResponse = Schemas['Topology'];

/** The call's query parameters, lists as lists (comma-separated on the wire). */
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
