/** The incident model of the spec (part 1 section 3, part 2 section 3.3):
 * option lists, defaults and the rules the screens share. */

export interface Choice<V extends string = string> {
  value: V;
  label: string;
}

const choices = <V extends string>(pairs: readonly (readonly [V, string])[]): Choice<V>[] =>
  pairs.map(([value, label]) => ({ value, label }));

export const INCIDENT_TYPES = choices([
  ['cost', 'Cost'],
  ['availability', 'Availability'],
  ['performance', 'Performance'],
  ['security', 'Security'],
  ['integration', 'Integration'],
  ['compliance', 'Compliance'],
  ['technicalDebt', 'Technical Debt'],
  ['reliability', 'Reliability'],
] as const);
export const DEFAULT_INCIDENT_TYPE = 'availability';

/** Low (0) to Critical (4); the table stores the name. */
export const SEVERITIES = choices([
  ['low', 'Low'],
  ['medium', 'Medium'],
  ['high', 'High'],
  ['blocker', 'Blocker'],
  ['critical', 'Critical'],
] as const);
export const DEFAULT_SEVERITY = 'low';

export const INCIDENT_STATUSES = choices([
  ['new', 'New'],
  ['open', 'Open'],
  ['investigating', 'Investigating'],
  ['mitigated', 'Mitigated'],
  ['resolved', 'Resolved'],
  ['closed', 'Closed'],
] as const);

export const HYPOTHESIS_TYPES = choices([
  ['root', 'Root'],
  ['factor', 'Factor'],
  ['solution', 'Solution'],
] as const);
export type HypothesisType = (typeof HYPOTHESIS_TYPES)[number]['value'];

export const HYPOTHESIS_STATUSES = choices([
  ['proven', 'Proven'],
  ['likely', 'Likely'],
  ['possible', 'Possible'],
  ['unlikely', 'Unlikely'],
  ['improbable', 'Improbable'],
  ['disproven', 'Disproven'],
] as const);
export const DEFAULT_HYPOTHESIS_STATUS = 'possible';

/** The label of a stored value, or the value itself when it is not in the list. */
export function labelOf(list: readonly Choice[], value: string | null | undefined): string {
  return list.find((c) => c.value === value)?.label ?? value ?? '';
}

/** Root, then factor, then solution: the type a new child of `parent` takes;
 * root when there is no parent, none under a solution (decision 86.4). */
export function childType(parent: string | null | undefined): HypothesisType | null {
  if (!parent) return 'root';
  if (parent === 'root') return 'factor';
  return parent === 'factor' ? 'solution' : null;
}

/** The statuses an incident in `status` may move to (decision 86.1), itself first; closed is final. */
const NEXT_STATUSES: Record<string, readonly string[]> = {
  new: ['open', 'investigating', 'mitigated', 'resolved', 'closed'],
  open: ['investigating', 'mitigated', 'resolved', 'closed'],
  investigating: ['open', 'mitigated', 'resolved', 'closed'],
  mitigated: ['open', 'investigating', 'resolved', 'closed'],
  resolved: ['open', 'investigating', 'closed'],
  closed: [],
};

export function statusChoices(status: string): Choice[] {
  const allowed = new Set([status, ...(NEXT_STATUSES[status] ?? [])]);
  return INCIDENT_STATUSES.filter((s) => allowed.has(s.value));
}

/** A hypothesis as the tree needs it. */
export interface TreeItem {
  id: string;
  parent_id: string | null;
  created_at: string;
}

export interface TreeNode<T extends TreeItem> {
  item: T;
  children: TreeNode<T>[];
}

/** The hypotheses as a forest, each level oldest first. A hypothesis whose
 * parent is missing is shown at the top rather than lost. */
export function hypothesisTree<T extends TreeItem>(items: readonly T[]): TreeNode<T>[] {
  const ids = new Set(items.map((i) => i.id));
  const sorted = [...items].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  const build = (parent: string | null): TreeNode<T>[] =>
    sorted
      .filter((i) => (parent === null ? !i.parent_id || !ids.has(i.parent_id) : i.parent_id === parent))
      .map((item) => ({ item, children: build(item.id) }));
  return build(null);
}

/** What an evidence points at. */
export interface EvidenceTarget {
  check_id: string | null;
  config_id: string | null;
  config_change_id: string | null;
  component_id: string | null;
}

/** Where an evidence's link goes: the check's detail on the health page, the
 * config (a change opens on its config's changes), or the component. */
export function evidenceHref(evidence: EvidenceTarget, changeConfigId?: string | null): string | undefined {
  if (evidence.check_id) return `/health?checkId=${encodeURIComponent(evidence.check_id)}&timeRange=1h`;
  if (evidence.config_change_id && changeConfigId)
    return `/catalog/${encodeURIComponent(changeConfigId)}/changes?change=${encodeURIComponent(evidence.config_change_id)}`;
  if (evidence.config_id) return `/catalog/${encodeURIComponent(evidence.config_id)}`;
  if (evidence.component_id) return `/topology/${encodeURIComponent(evidence.component_id)}`;
  return undefined;
}

export const incidentPath = (id: string) => `/incidents/${encodeURIComponent(id)}`;

/** The spec's incident event names, as the timeline reads them. */
const HISTORY_TEXT: Record<string, string> = {
  'incident.created': 'Incident created',
  'responder.created': 'Responder added',
  'evidence.created': 'Evidence attached',
  'incident.status_updated': 'Status changed',
  'evidence.done_definition_added': 'Definition of done changed',
  'incident_status.updated': 'Status changed',
  'responder.commented': 'Comment added',
  'hypothesis.created': 'Hypothesis added',
  'hypothesis.status_updated': 'Hypothesis status changed',
};

export function historyText(type: string): string {
  return HISTORY_TEXT[type] ?? type;
}
