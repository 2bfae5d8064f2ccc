import { ApiError } from '../../../api/errors';
import { apiFetch, readJson } from '../../../api/http';
import type { TopologyQuery, TopologyResponse } from './types';

/** The request target of GET /api/canary/api/topology; empty lists and unset
 * values are left out (exported for its test). */
export function topologyUrl(query: TopologyQuery): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query) as [keyof TopologyQuery, TopologyQuery[keyof TopologyQuery]][]) {
    if (value === undefined || value === '') continue;
    if (Array.isArray(value)) {
      if (value.length > 0) params.set(key, value.join(','));
    } else params.set(key, String(value));
  }
  const qs = params.toString();
  return `/api/canary/api/topology${qs ? `?${qs}` : ''}`;
}

/** Components with their children and the facets of the matching ones. */
export async function fetchTopology(query: TopologyQuery, signal?: AbortSignal): Promise<TopologyResponse> {
  const response = await apiFetch(new Request(topologyUrl(query), { headers: { Accept: 'application/json' }, signal }));
  const body = await readJson(response);
  if (!response.ok) throw new ApiError(response.status, body);
  return body as TopologyResponse;
}
