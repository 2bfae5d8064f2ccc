/** The permission editor: subject and
 * resource kinds, the clearing rules, and the row written. */

import type { Json } from '../api/relations.gen';
import { MESSAGES, ROLES, RULE_OBJECTS, type Role } from '../api/rules.gen';

export const SUBJECT_KINDS = [
  { value: 'person', label: 'Person' },
  { value: 'team', label: 'Team' },
  { value: 'notification', label: 'Notification' },
  { value: 'role', label: 'Role (group)' },
  { value: 'playbook', label: 'Playbook' },
] as const;
export type SubjectKind = (typeof SUBJECT_KINDS)[number]['value'];

export const RESOURCE_KINDS = [
  { value: 'global', label: 'Global object' },
  { value: 'playbook', label: 'Playbook' },
  { value: 'connection', label: 'Connection' },
  { value: 'canary', label: 'Health check' },
  { value: 'component', label: 'Component' },
  { value: 'config', label: 'Catalog item' },
] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number]['value'] | 'selector';

export const GLOBAL_OBJECTS = RULE_OBJECTS;

export const SUBJECT_ROLES = ROLES;

/** A role the console knows (a stored one it does not know grants nothing). */
export function isRole(name: string): name is Role {
  return (ROLES as readonly string[]).includes(name);
}

const ACTIONS = ['read', 'update', 'create', 'delete', '*', 'create,read,update,delete'];
const PLAYBOOK_ACTIONS = ['playbook:run', 'playbook:approve', 'playbook:*'];

/** Actions offered: playbook actions too when the resource is about playbooks. */
export function actionsFor(kind: ResourceKind, object: string): string[] {
  return kind === 'playbook' || (kind === 'global' && object === 'playbooks') ? [...ACTIONS, ...PLAYBOOK_ACTIONS] : ACTIONS;
}

export interface PermissionForm {
  subjectKind: SubjectKind;
  subjectId: string;
  resourceKind: ResourceKind;
  object: string;
  resourceId: string;
  action: string;
  deny: boolean;
  description: string;
}

export function emptyPermission(): PermissionForm {
  return {
    subjectKind: 'person',
    subjectId: '',
    resourceKind: 'global',
    object: '',
    resourceId: '',
    action: 'read',
    deny: false,
    description: '',
  };
}

/** Switching the subject kind clears the chosen subject. */
export function withSubjectKind(form: PermissionForm, kind: SubjectKind): PermissionForm {
  return kind === form.subjectKind ? form : { ...form, subjectKind: kind, subjectId: '' };
}

/** Switching the resource kind clears the chosen object and resource. */
export function withResourceKind(form: PermissionForm, kind: ResourceKind): PermissionForm {
  return kind === form.resourceKind ? form : { ...form, resourceKind: kind, object: '', resourceId: '' };
}

export const REQUIRED = MESSAGES.form.fieldRequired;

export interface PermissionErrors {
  subject?: string;
  resource?: string;
  action?: string;
}

export function validatePermission(form: PermissionForm): PermissionErrors {
  const errors: PermissionErrors = {};
  if (!form.subjectId) errors.subject = REQUIRED;
  if (form.resourceKind === 'global' ? !form.object : form.resourceKind !== 'selector' && !form.resourceId) errors.resource = REQUIRED;
  if (!form.action) errors.action = REQUIRED;
  return errors;
}

/** A permissions row as stored (the columns the editor reads and writes). */
export interface PermissionFields {
  subject_type: string;
  subject: string | null;
  person_id: string | null;
  team_id: string | null;
  notification_id: string | null;
  object: string | null;
  playbook_id: string | null;
  connection_id: string | null;
  canary_id: string | null;
  component_id: string | null;
  config_id: string | null;
  object_selector?: Json;
  action: string;
  deny: boolean;
  description: string | null;
}

const RESOURCE_COLUMNS = {
  playbook: 'playbook_id',
  connection: 'connection_id',
  canary: 'canary_id',
  component: 'component_id',
  config: 'config_id',
} as const;

export function toPermissionRow(form: PermissionForm): PermissionFields {
  const id = form.subjectId;
  const row: PermissionFields = {
    subject_type: form.subjectKind === 'role' ? 'group' : form.subjectKind,
    subject: id,
    person_id: form.subjectKind === 'person' ? id : null,
    team_id: form.subjectKind === 'team' ? id : null,
    notification_id: form.subjectKind === 'notification' ? id : null,
    object: form.resourceKind === 'global' ? form.object : null,
    playbook_id: null,
    connection_id: null,
    canary_id: null,
    component_id: null,
    config_id: null,
    action: form.action,
    deny: form.deny,
    description: form.description.trim() || null,
  };
  if (form.resourceKind !== 'global' && form.resourceKind !== 'selector') row[RESOURCE_COLUMNS[form.resourceKind]] = form.resourceId;
  return row;
}

export function fromPermissionRow(row: PermissionFields): PermissionForm {
  const subjectKind: SubjectKind =
    row.subject_type === 'group' ? 'role' : (SUBJECT_KINDS.find((k) => k.value === row.subject_type)?.value ?? 'person');
  const subjectId =
    (subjectKind === 'person' && row.person_id) ||
    (subjectKind === 'team' && row.team_id) ||
    (subjectKind === 'notification' && row.notification_id) ||
    row.subject ||
    '';
  const column = (Object.entries(RESOURCE_COLUMNS) as [Exclude<ResourceKind, 'global' | 'selector'>, keyof PermissionFields][]).find(
    ([, c]) => row[c],
  );
  const resourceKind: ResourceKind = row.object ? 'global' : column ? column[0] : row.object_selector ? 'selector' : 'global';
  return {
    subjectKind,
    subjectId,
    resourceKind,
    object: row.object ?? '',
    resourceId: column ? String(row[column[1]]) : '',
    action: row.action,
    deny: row.deny,
    description: row.description ?? '',
  };
}
