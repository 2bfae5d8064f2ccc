/** The access scope form: its model, the '*' resource rules, the names-as-lines
 * parsing and the validation the API applies
 * (`AccessScopeSpec::validate` in crds). */

import { MESSAGES as RULE_MESSAGES } from '../api/rules.gen';

export const RESOURCE_TYPES = ['*', 'config', 'component', 'playbook', 'canary'] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];
export const WILDCARD = '*';

/** The form's messages: the server's own (`crds::messages`), generated. */
export const MESSAGES = {
  nameRequired: RULE_MESSAGES.form.nameRequired,
  subjectRequired: RULE_MESSAGES.accessScope.subjectRequired,
  resourcesRequired: RULE_MESSAGES.accessScope.resourcesRequired,
  scopesRequired: RULE_MESSAGES.accessScope.scopesRequired,
  scopeEmpty: RULE_MESSAGES.accessScope.scopeEmpty,
  nameWildcardAlone: RULE_MESSAGES.accessScope.nameWildcardAlone,
} as const;

export interface TagRow {
  key: string;
  value: string;
}

/** One scope as the form edits it: names are one per line. */
export interface ScopeForm {
  tags: TagRow[];
  agents: string[];
  names: string;
}

export type SubjectKind = 'guest' | 'team';

export interface AccessScopeForm {
  name: string;
  namespace: string;
  description: string;
  subjectKind: SubjectKind;
  personId: string;
  teamId: string;
  resources: ResourceType[];
  scopes: ScopeForm[];
}

/** A scope entry as stored. */
export interface ScopeEntry {
  tags?: Record<string, string>;
  agents?: string[];
  names?: string[];
}

export function emptyScope(): ScopeForm {
  return { tags: [], agents: [], names: '' };
}

export function emptyForm(): AccessScopeForm {
  return {
    name: '',
    namespace: 'default',
    description: '',
    subjectKind: 'guest',
    personId: '',
    teamId: '',
    resources: [],
    scopes: [emptyScope()],
  };
}

/** Toggles a resource type: choosing '*' removes the others, choosing another
 * type while '*' is chosen removes '*'. */
export function toggleResource(current: readonly ResourceType[], choice: ResourceType): ResourceType[] {
  if (current.includes(choice)) return current.filter((r) => r !== choice);
  if (choice === WILDCARD) return [WILDCARD];
  return [...current.filter((r) => r !== WILDCARD), choice];
}

/** Names, one per line: trimmed, blank lines dropped. */
export function parseNames(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

export function tagsOf(rows: readonly TagRow[]): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const row of rows) {
    const key = row.key.trim();
    if (key) tags[key] = row.value.trim();
  }
  return tags;
}

export function toEntry(scope: ScopeForm): ScopeEntry {
  const entry: ScopeEntry = {};
  const tags = tagsOf(scope.tags);
  if (Object.keys(tags).length > 0) entry.tags = tags;
  if (scope.agents.length > 0) entry.agents = [...scope.agents];
  const names = parseNames(scope.names);
  if (names.length > 0) entry.names = names;
  return entry;
}

export function fromEntry(entry: ScopeEntry): ScopeForm {
  return {
    tags: Object.entries(entry.tags ?? {}).map(([key, value]) => ({ key, value: String(value) })),
    agents: [...(entry.agents ?? [])],
    names: (entry.names ?? []).join('\n'),
  };
}

/** Messages by field: name, subject, resources, scopes, and per scope index. */
export interface AccessScopeErrors {
  name?: string;
  subject?: string;
  resources?: string;
  scopes?: string;
  scope: Record<number, string>;
}

export function validate(form: AccessScopeForm): AccessScopeErrors {
  const errors: AccessScopeErrors = { scope: {} };
  if (!form.name.trim()) errors.name = MESSAGES.nameRequired;
  const subject = form.subjectKind === 'guest' ? form.personId : form.teamId;
  if (!subject) errors.subject = MESSAGES.subjectRequired;
  if (form.resources.length === 0) errors.resources = MESSAGES.resourcesRequired;
  if (form.scopes.length === 0) errors.scopes = MESSAGES.scopesRequired;
  form.scopes.forEach((scope, index) => {
    const entry = toEntry(scope);
    if (!entry.tags && !entry.agents && !entry.names) {
      errors.scope[index] = MESSAGES.scopeEmpty;
    } else if (entry.names && entry.names.includes(WILDCARD) && entry.names.length > 1) {
      errors.scope[index] = MESSAGES.nameWildcardAlone;
    }
  });
  return errors;
}

export function hasErrors(errors: AccessScopeErrors): boolean {
  return Boolean(errors.name || errors.subject || errors.resources || errors.scopes) || Object.keys(errors.scope).length > 0;
}

/** Scopes can be removed only while more than one remains. */
export function canRemoveScope(form: AccessScopeForm): boolean {
  return form.scopes.length > 1;
}

/** The row written to /api/db/access_scopes. */
export interface AccessScopePayload {
  name: string;
  namespace: string;
  description: string | null;
  person_id: string | null;
  team_id: string | null;
  resources: ResourceType[];
  scopes: ScopeEntry[];
}

export function toPayload(form: AccessScopeForm): AccessScopePayload {
  const description = form.description.trim();
  return {
    name: form.name.trim(),
    namespace: form.namespace.trim() || 'default',
    description: description || null,
    person_id: form.subjectKind === 'guest' && form.personId ? form.personId : null,
    team_id: form.subjectKind === 'team' && form.teamId ? form.teamId : null,
    resources: [...form.resources],
    scopes: form.scopes.map(toEntry),
  };
}

export function scopeCount(count: number): string {
  return `${count} ${count === 1 ? 'scope' : 'scopes'}`;
}
