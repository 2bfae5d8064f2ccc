/** The item's ancestors, root first, from the rows of
 * `get_parents_by_location` (the items at the item's location and their
 * ancestors): only the rows on the item's own `path` (the ancestors' ids,
 * root first) and in its order. Ancestors the caller does not see are left out. */
export function ancestorsOf<T extends { id: string }>(path: string | null | undefined, rows: readonly T[]): T[] {
  const ids = (path ?? '').split('.').filter(Boolean);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [row] : [];
  });
}
