// The chart's CRD, generated from the crds crate: the one copy of the schema.
import crdYaml from '../../../../../charts/quarterdeck/crds/playbooks.quarterdeck.dev.yaml?raw';
import type { FieldProblem } from '../../../api/errors';
import { crdSpecSchema, schemaProblems } from '../../../components/resource-editor/specSchema';
import { MESSAGES, type ParameterType } from '../parameters';

/** The action kinds of the Playbook CRD; an action has exactly one. */
export const ACTION_KINDS = [
  'exec',
  'http',
  'sql',
  'pod',
  'prometheus',
  'gitops',
  'github',
  'azureDevopsPipeline',
  'notification',
  'logs',
  'catalog',
  'report',
  'ai',
] as const;

const PARAMETER_TYPES: readonly ParameterType[] = [
  'check',
  'checkbox',
  'code',
  'component',
  'config',
  'configs',
  'duration',
  'list',
  'people',
  'team',
  'text',
  'bytes',
  'millicores',
  'secret',
];

/** The server's messages for a playbook spec (store playbook_params), checked before it is sent. */
export const SPEC_MESSAGES = {
  actionsRequired: 'A playbook needs at least one action',
  actionKind: `An action needs exactly one of ${ACTION_KINDS.join(', ')}`,
  duplicateName: 'Another one has this name',
  approvalType: 'Must be any or all',
  notAnObject: 'Must be an object',
  notAList: 'Must be a list',
  parameterType: `Must be one of ${PARAMETER_TYPES.join(', ')}`,
} as const;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Named items of a list: each an object with a unique, non-blank name. */
function named(items: unknown[], field: string, problems: FieldProblem[], check: (item: Json, at: string) => void) {
  const names = new Set<string>();
  items.forEach((item, i) => {
    const at = `${field}[${i}]`;
    if (!isObject(item)) {
      problems.push({ field: at, message: SPEC_MESSAGES.notAnObject });
      return;
    }
    const name = typeof item.name === 'string' ? item.name.trim() : '';
    if (!name) problems.push({ field: `${at}.name`, message: MESSAGES.required });
    else if (names.has(name)) problems.push({ field: `${at}.name`, message: SPEC_MESSAGES.duplicateName });
    names.add(name);
    check(item, at);
  });
}

/** The Playbook CRD's structural rules the server checks first: at least one
 * action, each named uniquely with exactly one kind; parameters named
 * uniquely with a known type; approval type any or all. The server checks
 * the rest of the schema on save. */
export function specProblems(spec: Json): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const { actions, parameters, approval } = spec;
  if (Array.isArray(actions) && actions.length > 0) {
    named(actions, 'spec.actions', problems, (action, at) => {
      const kinds = ACTION_KINDS.filter((k) => action[k] !== undefined && action[k] !== null).length;
      if (kinds !== 1) problems.push({ field: at, message: SPEC_MESSAGES.actionKind });
    });
  } else if (actions === undefined || actions === null || Array.isArray(actions)) {
    problems.push({ field: 'spec.actions', message: SPEC_MESSAGES.actionsRequired });
  } else problems.push({ field: 'spec.actions', message: SPEC_MESSAGES.notAList });
  if (Array.isArray(parameters)) {
    named(parameters, 'spec.parameters', problems, (p, at) => {
      if (p.type !== undefined && !PARAMETER_TYPES.includes(p.type as ParameterType))
        problems.push({ field: `${at}.type`, message: SPEC_MESSAGES.parameterType });
    });
  } else if (parameters !== undefined && parameters !== null) problems.push({ field: 'spec.parameters', message: SPEC_MESSAGES.notAList });
  if (isObject(approval)) {
    if (approval.type !== undefined && approval.type !== null && approval.type !== 'any' && approval.type !== 'all')
      problems.push({ field: 'spec.approval.type', message: SPEC_MESSAGES.approvalType });
  } else if (approval !== undefined && approval !== null) problems.push({ field: 'spec.approval', message: SPEC_MESSAGES.notAnObject });
  return problems;
}

/** The Playbook CRD's `spec` schema. */
export const PLAYBOOK_SPEC_SCHEMA = crdSpecSchema(crdYaml);

/** What the server would refuse in a spec, one line each: the structural rules
 * first, and only when they hold, the CRD's schema (`actions[0].exec.scrpt:
 * unknown field`), as the server checks them. */
export function specLines(spec: Json): string[] {
  const problems = specProblems(spec);
  return problems.length > 0 ? problems.map(problemText) : schemaProblems(spec, PLAYBOOK_SPEC_SCHEMA);
}

/** A problem as the YAML field lists it. */
export const problemText = (p: FieldProblem) => (p.field ? `${p.field}: ${p.message}` : p.message);

/** The columns a playbook row takes from its spec (title defaults to the name). */
export function specColumns(name: string, spec: Json) {
  const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);
  return {
    title: text(spec.title) ?? name,
    icon: text(spec.icon),
    description: text(spec.description),
    category: text(spec.category) ?? '',
  };
}
