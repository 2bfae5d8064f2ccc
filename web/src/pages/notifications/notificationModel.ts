/** The notifications area's model: send statuses, the rule form's values and
 * the columns they are stored in, silence durations and the history's URL
 * state. Field names follow Mission Control's Notification and
 * NotificationSilence. */

import type { Json } from '../../api/relations.gen';
import type { components } from '../../api/schema';
import { parse as parseYaml } from 'yaml';
import { searchFilter, searchNumber } from '../../lib/searchChanges';

export const NOTIFICATIONS_PATH = '/notifications';
export const RULES_PATH = `${NOTIFICATIONS_PATH}/rules`;
export const SILENCES_PATH = `${NOTIFICATIONS_PATH}/silences`;
export const ADD_SILENCE_PATH = `${SILENCES_PATH}/add`;

export function resourceSendsPath(resourceId: string): string {
  return `${NOTIFICATIONS_PATH}/resource/${resourceId}`;
}

/** The send history's statuses (the engine's shared contract). */
export const SEND_STATUSES = [
  { value: 'sent', label: 'Sent' },
  { value: 'failed', label: 'Failed' },
  { value: 'pending', label: 'Pending' },
  { value: 'silenced', label: 'Silenced' },
  { value: 'repeat-suppressed', label: 'Repeat suppressed' },
  { value: 'inhibited', label: 'Inhibited' },
  { value: 'skipped', label: 'Skipped' },
] as const;

export function statusLabel(status: string | null | undefined): string {
  return SEND_STATUSES.find((s) => s.value === status)?.label ?? status ?? 'Unknown';
}

export const RESOURCE_TYPES = [
  { value: 'check', label: 'Health check' },
  { value: 'config', label: 'Catalog item' },
  { value: 'component', label: 'Component' },
  { value: 'incident', label: 'Incident' },
  { value: 'playbook', label: 'Playbook run' },
] as const;

/** The kind of resource an event is about: `check.failed` is about a check. */
export function resourceTypeOf(sourceEvent: string): string {
  return sourceEvent.split('.', 1)[0] ?? sourceEvent;
}

export function resourceKindLabel(kind: string): string {
  return RESOURCE_TYPES.find((t) => t.value === kind)?.label ?? kind;
}

/** Where a resource of a send opens in the console, if it has a page. */
export function resourcePath(sourceEvent: string, resourceId: string): string | undefined {
  switch (resourceTypeOf(sourceEvent)) {
    case 'check':
      return `/health?checkId=${resourceId}&timeRange=1h`;
    case 'config':
      return `/catalog/${resourceId}`;
    case 'component':
      return `/topology/${resourceId}`;
    case 'incident':
      return `/incidents/${resourceId}`;
    case 'playbook':
      return `/playbooks/runs/${resourceId}`;
    default:
      return undefined;
  }
}

/** The events a rule may listen to (decisions 77.1 and 81.2, and the incident events). */
export const EVENTS: readonly string[] = [
  'check.passed',
  'check.failed',
  'config.created',
  'config.updated',
  'config.changed',
  'config.deleted',
  'config.healthy',
  'config.unhealthy',
  'config.warning',
  'config.unknown',
  'component.healthy',
  'component.unhealthy',
  'component.warning',
  'component.unknown',
  'incident.created',
  ...['open', 'investigating', 'mitigated', 'resolved', 'closed', 'cancelled'].map((s) => `incident.status.${s}`),
  'incident.responder.added',
  'incident.comment.added',
  'incident.dod.evidence.added',
  'incident.dod.passed',
  'incident.dod.regressed',
  ...['completed', 'failed', 'timed_out', 'cancelled'].map((s) => `playbook.run.${s}`),
];

// Durations ---------------------------------------------------------------

const UNITS: Record<string, number> = { ms: 1e6, s: 1e9, m: 60e9, h: 3600e9, d: 86400e9 };
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)/;

/** A Go-style duration (`1h30m`, `90s`) in nanoseconds, as the rule's
 * duration columns store it; undefined when it does not read as one. */
export function parseDuration(text: string): number | undefined {
  let rest = text.trim();
  if (rest === '') return undefined;
  let total = 0;
  while (rest !== '') {
    const m = DURATION.exec(rest);
    if (!m?.[1] || !m[2]) return undefined;
    total += Number(m[1]) * (UNITS[m[2]] ?? 0);
    rest = rest.slice(m[0].length);
  }
  return Math.round(total);
}

/** Nanoseconds as the shortest Go-style duration (`1h30m`). */
export function formatDuration(ns: number | null | undefined): string {
  if (ns == null) return '';
  if (ns === 0) return '0s';
  let rest = ns;
  let text = '';
  for (const unit of ['d', 'h', 'm', 's', 'ms'] as const) {
    const size = UNITS[unit] ?? 1;
    const n = Math.floor(rest / size);
    if (n > 0) {
      text += `${n}${unit}`;
      rest -= n * size;
    }
  }
  return text;
}

// Recipients ----------------------------------------------------------------

export type RecipientKind = 'person' | 'team' | 'connection' | 'url' | 'playbook';

export const RECIPIENT_KINDS: readonly { value: RecipientKind; label: string }[] = [
  { value: 'person', label: 'Person' },
  { value: 'team', label: 'Team' },
  { value: 'connection', label: 'Connection' },
  { value: 'url', label: 'URL' },
  { value: 'playbook', label: 'Playbook' },
];

/** One recipient: a person, team or playbook by id, a connection by its
 * `connection://namespace/name` reference, or a notification URL. */
export interface Recipient {
  kind: RecipientKind;
  value: string;
}

/** The columns a recipient is stored in, with or without the `fallback_` prefix. */
export interface RecipientColumns {
  person_id: string | null;
  team_id: string | null;
  playbook_id: string | null;
  custom_services: Json | null;
}

/** Connections and URLs are stored as Mission Control's custom services,
 * a list of `{connection}` or `{url}`. */
export function recipientColumns(recipient: Recipient | undefined): RecipientColumns {
  const columns: RecipientColumns = { person_id: null, team_id: null, playbook_id: null, custom_services: null };
  if (!recipient || recipient.value.trim() === '') return columns;
  const value = recipient.value.trim();
  switch (recipient.kind) {
    case 'person':
      return { ...columns, person_id: value };
    case 'team':
      return { ...columns, team_id: value };
    case 'playbook':
      return { ...columns, playbook_id: value };
    case 'connection':
      return { ...columns, custom_services: [{ connection: value }] };
    case 'url':
      return { ...columns, custom_services: [{ url: value }] };
  }
}

/** The recipient stored in a row's columns; undefined when there is none. */
export function recipientOf(columns: RecipientColumns): Recipient | undefined {
  if (columns.person_id) return { kind: 'person', value: columns.person_id };
  if (columns.team_id) return { kind: 'team', value: columns.team_id };
  if (columns.playbook_id) return { kind: 'playbook', value: columns.playbook_id };
  const [service] = Array.isArray(columns.custom_services) ? columns.custom_services : [];
  if (service && typeof service === 'object' && !Array.isArray(service)) {
    if (typeof service.connection === 'string') return { kind: 'connection', value: service.connection };
    if (typeof service.url === 'string') return { kind: 'url', value: service.url };
  }
  return undefined;
}

// Inhibitions ---------------------------------------------------------------

export type InhibitionDirection = 'outgoing' | 'incoming' | 'all';

export const INHIBITION_DIRECTIONS: readonly { value: InhibitionDirection; label: string }[] = [
  { value: 'outgoing', label: 'Outgoing' },
  { value: 'incoming', label: 'Incoming' },
  { value: 'all', label: 'All' },
];

/** One inhibition as the form edits it: `to` and `depth` as typed. */
export interface InhibitionForm {
  from: string;
  /** Resource types, comma-separated. */
  to: string;
  direction: InhibitionDirection;
  depth: string;
  soft: boolean;
}

export const EMPTY_INHIBITION: InhibitionForm = { from: '', to: '', direction: 'outgoing', depth: '', soft: false };

/** Mission Control's inhibition, as the `inhibitions` column stores it. */
export type Inhibition = {
  from: string;
  to: string[];
  direction: InhibitionDirection;
  depth?: number;
  soft?: boolean;
};

const isDirection = (value: unknown): value is InhibitionDirection => INHIBITION_DIRECTIONS.some((d) => d.value === value);

/** The stored inhibitions as form rows; entries that are no object are left out. */
export function inhibitionForms(stored: Json | null | undefined): InhibitionForm[] {
  if (!Array.isArray(stored)) return [];
  return stored.flatMap((item) => {
    if (!item || typeof item !== 'object' || Array.isArray(item)) return [];
    const to = Array.isArray(item.to) ? item.to.filter((t): t is string => typeof t === 'string') : [];
    return [
      {
        from: typeof item.from === 'string' ? item.from : '',
        to: to.join(', '),
        direction: isDirection(item.direction) ? item.direction : 'outgoing',
        depth: typeof item.depth === 'number' ? String(item.depth) : '',
        soft: item.soft === true,
      },
    ];
  });
}

/** Per row and field: `inhibitions[0].to`. */
export type InhibitionErrors = Record<string, string>;

/** The rows as Mission Control's inhibitions, or each row's problems by `inhibitions[i].field`. */
export function inhibitionsColumn(rows: InhibitionForm[]): { errors: InhibitionErrors } | { inhibitions: Inhibition[] | null } {
  const errors: InhibitionErrors = {};
  const inhibitions = rows.map((row, i) => {
    const at = (field: string, message: string) => (errors[`inhibitions[${i}].${field}`] = message);
    const from = row.from.trim();
    const to = row.to
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    if (from === '') at('from', 'The resource type that inhibits is required');
    if (to.length === 0) at('to', 'At least one resource type is required');
    const depthText = row.depth.trim();
    const depth = depthText === '' ? undefined : Number(depthText);
    if (depth !== undefined && !(Number.isInteger(depth) && depth >= 1)) at('depth', 'Depth is a whole number, 1 or more');
    const inhibition: Inhibition = { from, to, direction: row.direction };
    if (depth !== undefined) inhibition.depth = depth;
    if (row.soft) inhibition.soft = true;
    return inhibition;
  });
  if (Object.keys(errors).length > 0) return { errors };
  return { inhibitions: inhibitions.length > 0 ? inhibitions : null };
}

// The rule form -------------------------------------------------------------

export interface RuleForm {
  name: string;
  namespace: string;
  events: string[];
  filter: string;
  title: string;
  template: string;
  to: Recipient;
  repeatInterval: string;
  groupBy: string;
  waitFor: string;
  fallback: Recipient;
  fallbackDelay: string;
  inhibitions: InhibitionForm[];
}

export const EMPTY_RULE: RuleForm = {
  name: '',
  namespace: 'default',
  events: [],
  filter: '',
  title: '',
  template: '',
  to: { kind: 'person', value: '' },
  repeatInterval: '',
  groupBy: '',
  waitFor: '',
  fallback: { kind: 'person', value: '' },
  fallbackDelay: '',
  inhibitions: [],
};

/** The rule columns the form reads and writes. */
export interface RuleColumns {
  name: string;
  namespace: string;
  events: string[];
  filter: string | null;
  title: string | null;
  template: string | null;
  person_id: string | null;
  team_id: string | null;
  playbook_id: string | null;
  custom_services: Json | null;
  repeat_interval: string | null;
  group_by: string[] | null;
  wait_for: number | null;
  fallback_person_id: string | null;
  fallback_team_id: string | null;
  fallback_playbook_id: string | null;
  fallback_custom_services: Json | null;
  fallback_delay: number | null;
  inhibitions: Json | null;
}

export function ruleForm(row: RuleColumns): RuleForm {
  const fallback = recipientOf({
    person_id: row.fallback_person_id,
    team_id: row.fallback_team_id,
    playbook_id: row.fallback_playbook_id,
    custom_services: row.fallback_custom_services,
  });
  return {
    name: row.name,
    namespace: row.namespace,
    events: row.events,
    filter: row.filter ?? '',
    title: row.title ?? '',
    template: row.template ?? '',
    to: recipientOf(row) ?? EMPTY_RULE.to,
    repeatInterval: row.repeat_interval ?? '',
    groupBy: (row.group_by ?? []).join(', '),
    waitFor: formatDuration(row.wait_for),
    fallback: fallback ?? EMPTY_RULE.fallback,
    fallbackDelay: formatDuration(row.fallback_delay),
    inhibitions: inhibitionForms(row.inhibitions),
  };
}

export type RuleErrors = Partial<Record<'name' | 'events' | 'to' | 'repeatInterval' | 'waitFor' | 'groupBy' | 'fallbackDelay', string>> &
  InhibitionErrors;

const optional = (text: string) => (text.trim() === '' ? null : text.trim());

/** The form's problems by field, or the columns to write. */
export function ruleColumns(form: RuleForm): { errors: RuleErrors } | { columns: RuleColumns } {
  const errors: RuleErrors = {};
  if (form.name.trim() === '') errors.name = 'Name is required';
  if (form.events.length === 0) errors.events = 'At least one event is required';
  if (form.to.value.trim() === '') errors.to = 'A recipient is required';
  const duration = (field: 'repeatInterval' | 'waitFor' | 'fallbackDelay') => {
    const text = form[field].trim();
    if (text === '') return null;
    const ns = parseDuration(text);
    if (ns === undefined) errors[field] = `Not a duration: ${text} (e.g. 30m, 4h)`;
    return ns ?? null;
  };
  duration('repeatInterval');
  const waitFor = duration('waitFor');
  const fallbackDelay = duration('fallbackDelay');
  const groupBy = form.groupBy
    .split(',')
    .map((g) => g.trim())
    .filter(Boolean);
  if (groupBy.length > 0 && waitFor === null) errors.groupBy = 'Group by needs Wait for';
  const inhibitions = inhibitionsColumn(form.inhibitions);
  if ('errors' in inhibitions) Object.assign(errors, inhibitions.errors);
  if ('errors' in inhibitions || Object.keys(errors).length > 0) return { errors };
  const fallback = recipientColumns(form.fallback);
  return {
    columns: {
      name: form.name.trim(),
      namespace: form.namespace.trim() || 'default',
      events: form.events,
      filter: optional(form.filter),
      title: optional(form.title),
      template: optional(form.template),
      ...recipientColumns(form.to),
      repeat_interval: optional(form.repeatInterval),
      group_by: groupBy.length > 0 ? groupBy : null,
      wait_for: waitFor,
      fallback_person_id: fallback.person_id,
      fallback_team_id: fallback.team_id,
      fallback_playbook_id: fallback.playbook_id,
      fallback_custom_services: fallback.custom_services,
      fallback_delay: fallbackDelay,
      inhibitions: inhibitions.inhibitions,
    },
  };
}

// Silences ------------------------------------------------------------------

/** Silence durations: the time-range picker's future ranges, and Indefinitely (until null). */
export const SILENCE_DURATIONS = [
  { value: '1h', label: 'Next 1 hour' },
  { value: '3h', label: 'Next 3 hours' },
  { value: '6h', label: 'Next 6 hours' },
  { value: '12h', label: 'Next 12 hours' },
  { value: '1d', label: 'Next 1 day' },
  { value: '2d', label: 'Next 2 days' },
  { value: '7d', label: 'Next 7 days' },
  { value: '30d', label: 'Next 30 days' },
  { value: 'indefinitely', label: 'Indefinitely' },
] as const;

export type SilenceDuration = (typeof SILENCE_DURATIONS)[number]['value'];

/** Whether a silence is in force at `now`. */
export function silenceState(silence: { from: string | null; until: string | null }, now: number): 'active' | 'scheduled' | 'expired' {
  if (silence.until && new Date(silence.until).getTime() <= now) return 'expired';
  if (silence.from && new Date(silence.from).getTime() > now) return 'scheduled';
  return 'active';
}

// The history's URL state -----------------------------------------------------

/** Loading all the history reads 1000 rows at a time (spec part 1). */
export const ALL_PAGE_SIZE = 1000;

export interface HistoryParams {
  status?: string;
  resourceType?: string;
  search?: string;
  /** `includeDeletedResources=true`: also sends about resources deleted since. */
  includeDeleted: boolean;
  page: number;
  pageSize: number;
}

export function historyParams(search: URLSearchParams, defaultPageSize: number): HistoryParams {
  return {
    status: searchFilter(search, 'status'),
    resourceType: searchFilter(search, 'resourceType'),
    search: searchFilter(search, 'search'),
    includeDeleted: search.get('includeDeletedResources') === 'true',
    page: searchNumber(search, 'page', 1),
    pageSize: searchNumber(search, 'pageSize', defaultPageSize),
  };
}

export type SendHistoryRequest = components['schemas']['SendHistoryRequest'];

/** The body of `POST /api/notification/summary` for the URL's filters (pages from 1 there, from 0 here);
 * one resource's sends include those about it after it was deleted. */
export function historyRequest(params: HistoryParams, resourceId?: string): SendHistoryRequest {
  return {
    pageIndex: params.page - 1,
    pageSize: Math.min(params.pageSize, ALL_PAGE_SIZE),
    status: params.status ?? null,
    resourceType: resourceId ? null : (params.resourceType ?? null),
    search: params.search ?? null,
    includeDeletedResources: resourceId ? true : params.includeDeleted,
    resourceId: resourceId ?? null,
  };
}

export type SilenceTarget = 'check' | 'config' | 'component';

export const SILENCE_TARGETS: readonly { value: SilenceTarget; label: string }[] = [
  { value: 'check', label: 'Health check' },
  { value: 'config', label: 'Catalog item' },
  { value: 'component', label: 'Component' },
];

export function isSilenceTarget(value: string | null | undefined): value is SilenceTarget {
  return SILENCE_TARGETS.some((t) => t.value === value);
}

/** Where the silence form opens for the resource of a send, when a silence can name it. */
export function addSilencePath(sourceEvent: string, resourceId: string): string | undefined {
  const type = resourceTypeOf(sourceEvent);
  if (!isSilenceTarget(type)) return undefined;
  return `${ADD_SILENCE_PATH}?${new URLSearchParams({ resourceType: type, resourceId })}`;
}

export interface SilenceForm {
  name: string;
  description: string;
  targetType: SilenceTarget;
  targetId: string;
  recursive: boolean;
  filter: string;
  /** Resource selectors as YAML or JSON text, a list of them. */
  selectors: string;
  duration: SilenceDuration;
}

/** The body of `POST /api/notification/silence`: the resource by id whatever its kind, and `until` as a duration from now or `indefinitely`. */
export interface SilenceBody {
  name: string;
  description: string | null;
  filter: string | null;
  /** Parsed from the field's YAML; the server checks each reads as a resource selector. */
  selectors: ResourceSelector[] | null;
  resource_id: string | null;
  recursive: boolean;
  until: SilenceDuration;
}

export type SilenceErrors = Partial<Record<'name' | 'target' | 'filter' | 'selectors', string>>;

export const SILENCE_MATCHER_REQUIRED = 'A resource, a filter or selectors are required';

/** A playbook's resource selector (`name`, `namespace`, `types`, `tagSelector`, `labelSelector`, ...), which the server reads. */
export type ResourceSelector = Record<string, unknown>;

/** How the Selectors field reads. */
export const SELECTORS_SYNTAX =
  'A YAML or JSON list of resource selectors (name, namespace, types, statuses, health, tagSelector, labelSelector, fieldSelector), e.g. - types: [http]';

/** The Selectors field's text as a list of selectors (null when blank), or why it is none. */
export function parseSelectors(text: string): { selectors: ResourceSelector[] | null } | { error: string } {
  if (text.trim() === '') return { selectors: null };
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (e) {
    return { error: `selectors: not YAML or JSON: ${e instanceof Error ? e.message.split('\n', 1)[0] : String(e)}` };
  }
  if (value == null) return { selectors: null };
  if (!Array.isArray(value)) return { error: 'selectors: must be a list of resource selectors' };
  const wrong = value.findIndex((item) => !item || typeof item !== 'object' || Array.isArray(item));
  if (wrong >= 0) return { error: `selectors[${wrong}]: must be a resource selector (an object)` };
  return { selectors: value.length > 0 ? (value as ResourceSelector[]) : null };
}

/** The server's problems with a silence by the form's fields (`selectors[0].types` is the Selectors field). */
export function silenceFieldErrors(problems: readonly { field: string; message: string }[]): SilenceErrors {
  const errors: SilenceErrors = {};
  for (const { field, message } of problems) {
    const root = field.split(/[.[]/, 1)[0];
    const key = root === 'resource' || root === 'resource_id' ? 'target' : root;
    if (key === 'name' || key === 'target' || key === 'filter' || key === 'selectors') errors[key] ??= message;
  }
  return errors;
}

/** The form's problems, or the silence to create. */
export function silenceBody(form: SilenceForm): { errors: SilenceErrors } | { body: SilenceBody } {
  const errors: SilenceErrors = {};
  if (form.name.trim() === '') errors.name = 'Name is required';
  const id = form.targetId.trim() || null;
  const filter = optional(form.filter);
  const parsed = parseSelectors(form.selectors);
  if ('error' in parsed) errors.selectors = parsed.error;
  const selectors = 'selectors' in parsed ? parsed.selectors : null;
  if (!id && !filter && !selectors && !errors.selectors) errors.target = SILENCE_MATCHER_REQUIRED;
  if (Object.keys(errors).length > 0) return { errors };
  return {
    body: {
      name: form.name.trim(),
      description: optional(form.description),
      filter,
      selectors,
      resource_id: id,
      // Only catalog items and components have children.
      recursive: form.recursive && id !== null && form.targetType !== 'check',
      until: form.duration,
    },
  };
}
