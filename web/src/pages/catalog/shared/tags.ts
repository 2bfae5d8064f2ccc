/** Tags in the spec's order: account, namespace and name first, then the rest
 * alphabetically by key (part 2, shared pieces). */
const FIRST = ['account', 'namespace', 'name'];

export function sortTags(tags: Readonly<Record<string, unknown>> | null | undefined): [string, string][] {
  const rank = (key: string) => {
    const i = FIRST.indexOf(key);
    return i < 0 ? FIRST.length : i;
  };
  return Object.entries(tags ?? {})
    .map(([key, value]): [string, string] => [key, typeof value === 'string' ? value : JSON.stringify(value)])
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b));
}
