import type { Resource } from '../../../lib/authorizer';

/** The tabs of a config item's page. A tab's URL is `/catalog/{id}/{path}`
 * (the config itself at `/catalog/{id}`); `needs` is what the tab reads
 * besides the catalog. */
export const TABS = [
  { key: 'config', path: '', title: 'Config' },
  { key: 'changes', path: 'changes', title: 'Changes', count: 'changes' },
  { key: 'insights', path: 'insights', title: 'Insights', count: 'analysis' },
  { key: 'relationships', path: 'relationships', title: 'Relationships', count: 'relationships' },
  { key: 'playbooks', path: 'playbooks', title: 'Playbooks', needs: 'playbooks' },
  { key: 'checks', path: 'checks', title: 'Checks', count: 'checks', needs: 'canaries' },
] as const satisfies readonly { key: string; path: string; title: string; count?: string; needs?: Resource }[];

export type TabKey = (typeof TABS)[number]['key'];

/** What the rest of the path shows: a tab, a view (`view/{viewId}`), or
 * nothing known. */
export type Location = { tab: TabKey } | { view: string } | { unknown: string };

export function locate(rest: string | undefined): Location {
  const path = (rest ?? '').replace(/^\/+|\/+$/g, '');
  const tab = TABS.find((t) => t.path === path);
  if (tab) return { tab: tab.key };
  const view = /^view\/([^/]+)$/.exec(path);
  if (view?.[1]) return { view: decodeURIComponent(view[1]) };
  return { unknown: path };
}

/** The path of a tab of an item's page. */
export function tabPath(id: string, key: string): string {
  const path = TABS.find((t) => t.key === key)?.path ?? key;
  return path ? `/catalog/${id}/${path}` : `/catalog/${id}`;
}
