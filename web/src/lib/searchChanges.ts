/** `current` with `changes` applied, an empty value removing its parameter;
 * any change but paging goes back to the first page. */
export function withSearchChanges(
  current: URLSearchParams,
  changes: Record<string, string | number | undefined>,
  paging = false,
): URLSearchParams {
  const next = new URLSearchParams(current);
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined || value === '') next.delete(key);
    else next.set(key, String(value));
  }
  if (!paging) next.delete('page');
  return next;
}

/** The value of a list filter's 'All' option, which leaves its parameter out. */
export const ALL = 'all';

/** A filter's options with 'All' first. */
export function withAll(options: readonly { value: string; label: string }[]): { value: string; label: string }[] {
  return [{ value: ALL, label: 'All' }, ...options];
}

/** `withSearchChanges` where a filter set to 'All' removes its parameter. */
export function withFilterChanges(
  current: URLSearchParams,
  changes: Record<string, string | number | undefined>,
  paging = false,
): URLSearchParams {
  return withSearchChanges(current, Object.fromEntries(Object.entries(changes).map(([k, v]) => [k, v === ALL ? undefined : v])), paging);
}

/** A list's URL filter: its value, or undefined when absent, blank or 'all'. */
export function searchFilter(search: URLSearchParams, key: string): string | undefined {
  const value = search.get(key)?.trim();
  return value && value !== ALL ? value : undefined;
}

/** A list's positive whole-number URL parameter (page, page size), or `fallback`. */
export function searchNumber(search: URLSearchParams, key: string, fallback: number): number {
  const n = Number(search.get(key));
  return Number.isInteger(n) && n > 0 ? n : fallback;
}
