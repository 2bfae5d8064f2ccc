/** Token scopes (decision 2.4): presets and per-object levels. */

import { TOKEN_OBJECTS, type TokenAction, type TokenObject } from '../api/rules.gen';

export { TOKEN_OBJECTS, type TokenObject };

export const PRESETS = ['Read', 'Write', 'Admin', 'Custom'] as const;
export type Preset = (typeof PRESETS)[number];

export const EXPIRY_OPTIONS = [
  { value: '30d', label: '30 days' },
  { value: '90d', label: '90 days' },
  { value: '180d', label: '180 days' },
  { value: '365d', label: '1 year' },
  { value: 'never', label: 'Never' },
] as const;
export type Expiry = (typeof EXPIRY_OPTIONS)[number]['value'];
export const DEFAULT_EXPIRY: Expiry = '90d';

const CRUD: TokenAction[] = ['read', 'create', 'update', 'delete'];
const RUN: TokenAction = 'playbook:run';
const APPROVE: TokenAction = 'playbook:approve';

/** Levels offered per object, each with the actions it grants. */
export function levelsFor(object: TokenObject): { level: string; actions: string[] }[] {
  if (object === 'mcp') {
    return [
      { level: 'None', actions: [] },
      { level: 'Admin', actions: ['*'] },
    ];
  }
  if (object === 'playbooks') {
    return [
      { level: 'None', actions: [] },
      { level: 'Read', actions: ['read'] },
      { level: 'Run', actions: ['read', RUN] },
      { level: 'Approve', actions: ['read', RUN, APPROVE] },
      { level: 'Write', actions: ['read', RUN, APPROVE, 'create', 'delete'] },
    ];
  }
  return [
    { level: 'None', actions: [] },
    { level: 'Read', actions: ['read'] },
    { level: 'Write', actions: ['read', 'create'] },
    { level: 'Admin', actions: CRUD },
  ];
}

export type ScopeActions = Record<TokenObject, string[]>;

/** The actions a preset grants on every object; Custom keeps the current ones.
 * mcp has only its wildcard, which Read and Admin name and Write (read and
 * create) does not. */
export function presetActions(preset: Exclude<Preset, 'Custom'>): ScopeActions {
  const base = preset === 'Read' ? ['read'] : preset === 'Write' ? ['read', 'create'] : CRUD;
  const result = {} as ScopeActions;
  for (const object of TOKEN_OBJECTS) {
    if (object === 'mcp') result[object] = preset === 'Write' ? [] : ['*'];
    else if (object === 'playbooks' && preset === 'Admin') result[object] = [...CRUD, RUN, APPROVE];
    else result[object] = [...base];
  }
  return result;
}

/** 'Setup MCP' (decision 96): Custom, every mcp action, read on the rest,
 * so an agent sees what its person sees and changes nothing until widened. */
export function mcpSetupActions(): ScopeActions {
  return { ...presetActions('Read'), mcp: actionsOf('mcp', 'Admin') };
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

/** The level whose actions are exactly these, if any. */
export function levelOf(object: TokenObject, actions: readonly string[]): string | undefined {
  return levelsFor(object).find((l) => sameSet(l.actions, actions))?.level;
}

export function actionsOf(object: TokenObject, level: string): string[] {
  return [...(levelsFor(object).find((l) => l.level === level)?.actions ?? [])];
}

export interface ScopeGrant {
  subject?: string;
  object: TokenObject;
  action: string;
}

/** Grants for the request: one per object with any action. */
export function toGrants(actions: ScopeActions, subject?: string): ScopeGrant[] {
  return TOKEN_OBJECTS.filter((o) => actions[o].length > 0).map((object) => ({
    ...(subject ? { subject } : {}),
    object,
    action: actions[object].join(','),
  }));
}

export function isValidTokenName(name: string): boolean {
  return name.trim() !== '';
}
