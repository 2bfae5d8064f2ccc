/** An ancestor in the breadcrumb trail. */
export interface Crumb {
  id: string;
  name: string;
  icon?: string | null;
}

/** The ancestor ids of a component, root first, from its `path` (dot-separated
 * ancestor ids; '' or null for a root). The component's own id never counts. */
export function ancestorIds(path: string | null | undefined, ownId?: string): string[] {
  if (!path) return [];
  const ids = path.split('.').filter((id) => id !== '' && id !== ownId);
  return [...new Set(ids)];
}

/** The trail from the root down to the parent, in path order. Ancestors the
 * caller may not read (access scopes leave them out of the rows) are left out
 * rather than shown by id. */
export function breadcrumbTrail(ids: readonly string[], rows: readonly Crumb[]): Crumb[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [row] : [];
  });
}
