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
