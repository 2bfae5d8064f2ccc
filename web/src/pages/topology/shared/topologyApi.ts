import { api, unwrap } from '../../../api/client';
import type { TopologyQuery, TopologyResponse } from './types';

type WireQuery = { [K in keyof TopologyQuery]: TopologyQuery[K] extends readonly string[] | undefined ? string : TopologyQuery[K] };

/** The query as sent: lists comma-separated, empty lists and unset values
 * left out (exported for its test). */
export function wireQuery(query: TopologyQuery): WireQuery {
  const wire: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === '') continue;
    if (Array.isArray(value)) {
      if (value.length > 0) wire[key] = value.join(',');
    } else wire[key] = value;
  }
  return wire as WireQuery;
}

/** Components with their children and the facets of the matching ones. */
export function fetchTopology(query: TopologyQuery, signal?: AbortSignal): Promise<TopologyResponse> {
  return unwrap(api.GET('/api/canary/api/topology', { params: { query: wireQuery(query) }, signal }));
}
