/** Pieces of the catalog lists' URL state: comma-separated lists, and a sort
 * written as one parameter, `name` ascending or `-name` descending. */

export interface Sort<Key extends string> {
  sortBy: Key;
  sortDesc: boolean;
}

/** `a, b,,c` -> ['a', 'b', 'c']. */
export function splitList(text: string | null): string[] {
  return (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export const sortText = ({ sortBy, sortDesc }: Sort<string>) => `${sortDesc ? '-' : ''}${sortBy}`;

/** `-created_at` -> created_at, descending; anything unknown reads as `fallback`. */
export function parseSort<Key extends string>(text: string | null, sorts: readonly Key[], fallback: string): Sort<Key> {
  const read = (value: string) => {
    const desc = value.startsWith('-');
    const name = desc ? value.slice(1) : value;
    return (sorts as readonly string[]).includes(name) ? { sortBy: name as Key, sortDesc: desc } : undefined;
  };
  return read(text ?? fallback) ?? (read(fallback) as Sort<Key>);
}

/** Writes the sort of `patch` over the current one into `next`, leaving out the default. */
export function writeSort<Key extends string>(
  next: URLSearchParams,
  param: string,
  current: Sort<Key>,
  patch: Partial<Sort<Key>>,
  fallback: string,
): void {
  if (!('sortBy' in patch) && !('sortDesc' in patch)) return;
  const text = sortText({ sortBy: patch.sortBy ?? current.sortBy, sortDesc: patch.sortDesc ?? current.sortDesc });
  if (text === fallback) next.delete(param);
  else next.set(param, text);
}
