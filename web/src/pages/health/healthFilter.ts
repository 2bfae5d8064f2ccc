/** Filtering the Health page's checks: search, hide passing, label filters
 * and tabs (decision 14.1). Pure, so the page can memoize them. */
import type { Schemas } from '../../api/client';
import { LABEL_PREFIX, type LabelFilter } from './healthParams';

export type CheckSummary = Schemas['CheckSummary'];

/** The namespace tab of checks without one. */
export const NO_NAMESPACE = 'none';

/** A check's labels as text (values may arrive as booleans or numbers). */
export function labelsOf(check: CheckSummary): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [key, value] of Object.entries((check.labels ?? {}) as Record<string, unknown>)) {
    if (value !== null && value !== undefined) labels[key] = String(value);
  }
  return labels;
}

/** The id of one label value in the labels parameter. */
export const labelId = (key: string, value: string) => `${key}=${value}`;

/** The key of a label id (label keys hold no '='). */
const labelKeyOf = (id: string) => id.slice(0, Math.max(0, id.indexOf('=')));

export interface LabelChoice {
  key: string;
  values: string[];
  /** Only 'true' and 'false' seen: the filter is a switch on `key=true`. */
  isBoolean: boolean;
}

/** Every label key of the checks with its values, sorted. */
export function labelChoices(checks: readonly CheckSummary[]): LabelChoice[] {
  const byKey = new Map<string, Set<string>>();
  for (const check of checks) {
    for (const [key, value] of Object.entries(labelsOf(check))) {
      let values = byKey.get(key);
      if (!values) byKey.set(key, (values = new Set()));
      values.add(value);
    }
  }
  return [...byKey]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, set]) => {
      const values = [...set].sort((a, b) => a.localeCompare(b));
      return { key, values, isBoolean: values.every((v) => v === 'true' || v === 'false') };
    });
}

export interface CheckFilter {
  query: string;
  hidePassing: boolean;
  labels: LabelFilter;
  tabBy: string;
  /** The tab's value; none for 'All'. */
  tab?: string;
}

/** The value a check is tabbed under; undefined when it has none (it shows under 'All' only). */
export function tabValueOf(check: CheckSummary, tabBy: string): string | undefined {
  if (tabBy === 'namespace') return check.namespace || NO_NAMESPACE;
  if (tabBy === 'agent') return check.agent_id;
  if (tabBy.startsWith(LABEL_PREFIX)) return labelsOf(check)[tabBy.slice(LABEL_PREFIX.length)];
  return undefined;
}

export interface Tab {
  /** Undefined for 'All'. */
  value?: string;
  title: string;
}

/** 'All', then the tab-by values sorted by title (agents show their names). */
export function tabsFor(checks: readonly CheckSummary[], tabBy: string, agentNames: ReadonlyMap<string, string> = new Map()): Tab[] {
  const values = new Set<string>();
  for (const check of checks) {
    const value = tabValueOf(check, tabBy);
    if (value !== undefined) values.add(value);
  }
  const tabs = [...values].map((value) => ({ value, title: tabBy === 'agent' ? (agentNames.get(value) ?? value) : value }));
  tabs.sort((a, b) => a.title.localeCompare(b.title));
  return [{ title: 'All' }, ...tabs];
}

const contains = (text: string | null | undefined, query: string) => Boolean(text && text.toLowerCase().includes(query));

/** Labels included (by key: any of them must match) and excluded (none may). */
function compileLabels(labels: LabelFilter) {
  const included = new Map<string, Set<string>>();
  const excluded = new Set<string>();
  for (const [id, state] of Object.entries(labels)) {
    if (state === -1) excluded.add(id);
    else {
      const key = labelKeyOf(id);
      let ids = included.get(key);
      if (!ids) included.set(key, (ids = new Set()));
      ids.add(id);
    }
  }
  return { included: [...included.values()], excluded };
}

/** The checks that pass the search (name, description or endpoint), hide
 * passing, the label filters and the selected tab. */
export function filterChecks(checks: readonly CheckSummary[], filter: CheckFilter): CheckSummary[] {
  const query = filter.query.trim().toLowerCase();
  const { included, excluded } = compileLabels(filter.labels);
  const hasLabelFilter = included.length > 0 || excluded.size > 0;
  return checks.filter((check) => {
    if (filter.hidePassing && check.status === 'healthy') return false;
    if (filter.tab !== undefined && tabValueOf(check, filter.tabBy) !== filter.tab) return false;
    if (query && !contains(check.name, query) && !contains(check.description, query) && !contains(check.endpoint, query)) return false;
    if (hasLabelFilter) {
      const ids = new Set(Object.entries(labelsOf(check)).map(([key, value]) => labelId(key, value)));
      for (const id of excluded) if (ids.has(id)) return false;
      for (const anyOf of included) if (![...anyOf].some((id) => ids.has(id))) return false;
    }
    return true;
  });
}

/** How many filters are on: hide passing and each label filter. */
export function activeFilterCount(hidePassing: boolean, labels: LabelFilter): number {
  return (hidePassing ? 1 : 0) + Object.keys(labels).length;
}

/** A label multi-select's toggle text: the values chosen ('!' marks an
 * exclusion), or counts once 4 or more are chosen. */
export function labelSelectionText(included: readonly string[], excluded: readonly string[]): string {
  if (included.length + excluded.length === 0) return 'Any';
  if (included.length + excluded.length < 4) return [...included, ...excluded.map((v) => `!${v}`)].join(', ');
  const count = (n: number) => `${n} ${n === 1 ? 'label' : 'labels'}`;
  const parts = [];
  if (included.length) parts.push(`including ${count(included.length)}`);
  if (excluded.length) parts.push(`excluding ${count(excluded.length)}`);
  return parts.join(', ');
}
