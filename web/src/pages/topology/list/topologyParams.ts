/** The dashboard's state, kept in its URL. Parameters: type, health and labels
 * (comma-separated; labels as `key=value`), team, owner, and
 * showHiddenComponents (yes or no; yes when absent, spec part 2 constants).
 * Defaults are left out of the URL. */
import { splitList } from '../../catalog/shared/listParams';
import type { TopologyQuery } from '../shared/types';

export const HEALTHS = ['healthy', 'unhealthy', 'warning', 'unknown'] as const;

export interface TopologyParams {
  types: string[];
  health: string[];
  labels: string[];
  team: string;
  owner: string;
  showHidden: boolean;
}

const LISTS = { types: 'type', health: 'health', labels: 'labels' } as const;
const HIDDEN = 'showHiddenComponents';

export function parseTopologyParams(search: URLSearchParams): TopologyParams {
  return {
    types: splitList(search.get(LISTS.types)),
    health: splitList(search.get(LISTS.health)).filter((h) => (HEALTHS as readonly string[]).includes(h)),
    labels: splitList(search.get(LISTS.labels)).filter((l) => l.includes('=')),
    team: search.get('team') ?? '',
    owner: search.get('owner') ?? '',
    showHidden: search.get(HIDDEN) !== 'no',
  };
}

/** `search` with `patch` written in. */
export function withTopologyParams(search: URLSearchParams, patch: Partial<TopologyParams>): URLSearchParams {
  const next = new URLSearchParams(search);
  for (const [key, value] of Object.entries(patch) as [keyof TopologyParams, unknown][]) {
    if (key === 'showHidden') {
      if (value === false) next.set(HIDDEN, 'no');
      else next.delete(HIDDEN);
      continue;
    }
    const name = key in LISTS ? LISTS[key as keyof typeof LISTS] : key;
    const text = Array.isArray(value) ? value.join(',') : String(value ?? '');
    if (text) next.set(name, text);
    else next.delete(name);
  }
  return next;
}

/** The root components the filters pick, without their children (the cards
 * show their counts). */
export function topologyQuery(params: TopologyParams): TopologyQuery {
  return {
    depth: 0,
    status: params.health,
    type: params.types,
    labels: params.labels,
    team: params.team || undefined,
    owner: params.owner || undefined,
    hidden: params.showHidden ? undefined : false,
  };
}
