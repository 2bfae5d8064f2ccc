/** The relationships tab's state in the URL: which way to walk, how many hops,
 * and whether the related items show as a graph or a list. */
export type Direction = 'incoming' | 'outgoing' | 'both';
export type RelationshipsView = 'graph' | 'list';

export interface RelationshipsParams {
  direction: Direction;
  depth: number;
  view: RelationshipsView;
}

export const DIRECTIONS: readonly Direction[] = ['incoming', 'outgoing', 'both'];
export const DEPTHS: readonly number[] = [1, 2, 3, 5, 10, 20];
/** The API's default `max_depth`. */
export const DEFAULT_DEPTH = 10;

const DEFAULTS: RelationshipsParams = { direction: 'both', depth: DEFAULT_DEPTH, view: 'graph' };

export function parseRelationshipsParams(search: URLSearchParams): RelationshipsParams {
  const direction = search.get('direction') as Direction | null;
  const depth = Number(search.get('depth'));
  return {
    direction: direction && DIRECTIONS.includes(direction) ? direction : DEFAULTS.direction,
    depth: DEPTHS.includes(depth) ? depth : DEFAULTS.depth,
    view: search.get('view') === 'list' ? 'list' : DEFAULTS.view,
  };
}

/** The search with the patch applied; defaults are left out of the URL. */
export function withRelationshipsParams(search: URLSearchParams, patch: Partial<RelationshipsParams>): URLSearchParams {
  const next = new URLSearchParams(search);
  const params = { ...parseRelationshipsParams(search), ...patch };
  for (const key of ['direction', 'depth', 'view'] as const) {
    if (params[key] === DEFAULTS[key]) next.delete(key);
    else next.set(key, String(params[key]));
  }
  return next;
}

/** The API's `type_filter` for a direction. */
export function typeFilter(direction: Direction): 'incoming' | 'outgoing' | 'all' {
  return direction === 'both' ? 'all' : direction;
}
