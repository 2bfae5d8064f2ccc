/** Sorting and grouping the Health page's checks into table rows (decisions
 * 14.2 and 14.3). Pure, so the page can memoize them. */
import { labelsOf, NO_NAMESPACE, type CheckSummary } from './healthFilter';
import { rowLatency, uptimeRatio } from '../../lib/healthFormat';
import { LABEL_PREFIX, NO_GROUP, type SortColumn } from './healthParams';

/** The group of checks without a value for the group-by field. */
export const NO_VALUE = '(none)';

/** Good when all checks are healthy, bad when all are unhealthy, otherwise mixed. */
export type GroupStatus = 'good' | 'bad' | 'mixed';

export interface CheckGroup {
  name: string;
  checks: CheckSummary[];
  status: GroupStatus;
  /** Healthy checks. */
  passing: number;
  /** The slowest check's latency. */
  latency?: number;
}

export type HealthRow =
  { kind: 'check'; check: CheckSummary; isChild: boolean } | { kind: 'group'; group: CheckGroup; isExpanded: boolean };

/** A check's value for a field to group or pivot by (`label:<key>` for a label). */
export function fieldValue(check: CheckSummary, field: string): string | undefined {
  if (field.startsWith(LABEL_PREFIX)) return labelsOf(check)[field.slice(LABEL_PREFIX.length)];
  switch (field) {
    case 'canary_name':
      return check.canary_name;
    case 'name':
      return check.name;
    case 'description':
      return check.description || undefined;
    case 'type':
      return check.type;
    case 'namespace':
      return check.namespace || NO_NAMESPACE;
    default:
      return undefined;
  }
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

const byName = (a: CheckSummary, b: CheckSummary) =>
  collator.compare(a.name, b.name) || collator.compare(a.namespace ?? '', b.namespace ?? '') || collator.compare(a.id, b.id);

/** Unhealthy first, then never run, then healthy. */
const healthRank = (status: string | null | undefined) => (status === 'unhealthy' ? 0 : status === 'healthy' ? 2 : 1);
const GROUP_RANK: Record<GroupStatus, number> = { bad: 0, mixed: 1, good: 2 };

/** Sorts by `key` in the direction asked, items without a key last, ties by `tie`. */
function sortBy<T>(items: T[], key: (item: T) => number | string | undefined, desc: boolean, tie: (a: T, b: T) => number): T[] {
  const keyed = items.map((item) => ({ item, key: key(item) }));
  keyed.sort((a, b) => {
    if (a.key === undefined || b.key === undefined) {
      return a.key === b.key ? tie(a.item, b.item) : a.key === undefined ? 1 : -1;
    }
    const order = typeof a.key === 'string' ? collator.compare(a.key, b.key as string) : a.key - (b.key as number);
    return (desc ? -order : order) || tie(a.item, b.item);
  });
  return keyed.map((k) => k.item);
}

const CHECK_KEYS: Record<SortColumn, (check: CheckSummary) => number | string | undefined> = {
  name: (c) => c.name,
  health: (c) => healthRank(c.status),
  uptime: (c) => uptimeRatio(c.uptime),
  latency: (c) => rowLatency(c.latency),
};

const GROUP_KEYS: Record<SortColumn, (group: CheckGroup) => number | string | undefined> = {
  name: (g) => g.name,
  health: (g) => GROUP_RANK[g.status],
  uptime: (g) => g.passing / g.checks.length,
  latency: (g) => g.latency,
};

export function sortChecks(checks: readonly CheckSummary[], column: SortColumn, desc: boolean): CheckSummary[] {
  if (column === 'name') {
    const sorted = [...checks].sort(byName);
    return desc ? sorted.reverse() : sorted;
  }
  return sortBy([...checks], CHECK_KEYS[column], desc, byName);
}

export function groupStatus(checks: readonly CheckSummary[]): GroupStatus {
  if (checks.every((c) => c.status === 'healthy')) return 'good';
  if (checks.every((c) => c.status === 'unhealthy')) return 'bad';
  return 'mixed';
}

function makeGroup(name: string, checks: CheckSummary[]): CheckGroup {
  let latency: number | undefined;
  let passing = 0;
  for (const check of checks) {
    if (check.status === 'healthy') passing++;
    const l = rowLatency(check.latency);
    if (l !== undefined && (latency === undefined || l > latency)) latency = l;
  }
  return { name, checks, status: groupStatus(checks), passing, latency };
}

/** Groups of the (sorted) checks by a field, sorted like their checks;
 * undefined for no grouping. */
export function groupChecks(checks: readonly CheckSummary[], groupBy: string, column: SortColumn, desc: boolean): CheckGroup[] | undefined {
  if (groupBy === NO_GROUP) return undefined;
  const byValue = new Map<string, CheckSummary[]>();
  for (const check of checks) {
    const value = fieldValue(check, groupBy) ?? NO_VALUE;
    let members = byValue.get(value);
    if (!members) byValue.set(value, (members = []));
    members.push(check);
  }
  const groups = [...byValue].map(([name, members]) => makeGroup(name, members));
  return sortBy(groups, GROUP_KEYS[column], desc, (a, b) => collator.compare(a.name, b.name));
}

/** The table's rows: groups (a group of one shows as its check) and the
 * checks of expanded groups, or the checks when not grouped. */
export function tableRows(
  checks: readonly CheckSummary[],
  groups: readonly CheckGroup[] | undefined,
  expanded: ReadonlySet<string>,
): HealthRow[] {
  if (!groups) return checks.map((check) => ({ kind: 'check', check, isChild: false }));
  const rows: HealthRow[] = [];
  for (const group of groups) {
    const [only] = group.checks;
    if (group.checks.length === 1 && only) {
      rows.push({ kind: 'check', check: only, isChild: false });
      continue;
    }
    const isExpanded = expanded.has(group.name);
    rows.push({ kind: 'group', group, isExpanded });
    if (isExpanded) for (const check of group.checks) rows.push({ kind: 'check', check, isChild: true });
  }
  return rows;
}
