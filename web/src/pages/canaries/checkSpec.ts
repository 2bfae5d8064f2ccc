/** A Health Check (canary row) as the editor holds it, and back. Name,
 * namespace and labels are columns; schedule and icon live in the spec
 * beside the check lists (`{schedule, icon, http: [{...}], ...}`), and a form
 * edits the first item of its type's list. */
import { parse } from 'yaml';
import type { LabelRow } from '../../lib/integrations';
import { isUiSource, UI_SOURCE } from '../../lib/source';
import { toYamlText, type JsonObject } from '../../lib/yamlText';
import type { CheckType } from './checkTypes';
import { FOLDER_CONNECTIONS, type AuthKind, type Input, type ScriptKind } from './checkFields';

export interface CanaryRow {
  id: string;
  name: string;
  namespace: string;
  labels: Record<string, string> | null;
  spec: JsonObject | null;
  source: string | null;
  created_at: string;
  updated_at: string;
  deleted_at?: string | null;
}

export interface CanaryForm {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  schedule: string;
  icon: string;
  /** The spec without schedule and icon. */
  spec: JsonObject;
}

export const DEFAULT_NAMESPACE = 'default';

const isObject = (v: unknown): v is JsonObject => Boolean(v) && typeof v === 'object' && !Array.isArray(v);

function omit(obj: JsonObject, keys: readonly string[]): JsonObject {
  return Object.fromEntries(Object.entries(obj).filter(([key]) => !keys.includes(key)));
}

export function newCanaryForm(): CanaryForm {
  return { name: '', namespace: DEFAULT_NAMESPACE, labels: {}, schedule: '', icon: '', spec: {} };
}

/** The top fields out of a stored spec, and the rest. */
function split(spec: unknown): Pick<CanaryForm, 'schedule' | 'icon' | 'spec'> {
  const { schedule, icon, ...rest } = isObject(spec) ? spec : {};
  return { schedule: typeof schedule === 'string' ? schedule : '', icon: typeof icon === 'string' ? icon : '', spec: rest };
}

export function canaryForm(row: CanaryRow): CanaryForm {
  return { name: row.name, namespace: row.namespace, labels: { ...row.labels }, ...split(row.spec) };
}

export function isReadOnly(row: CanaryRow | undefined): boolean {
  return Boolean(row) && !isUiSource(row?.source);
}

/** The form once a type is chosen: an existing canary keeps its stored spec
 * (with the type's list added when missing); a new one starts from the
 * type's template. Top fields are kept. */
export function chooseType(form: CanaryForm, type: CheckType, stored?: JsonObject | null): CanaryForm {
  if (!stored) return { ...form, spec: structuredClone(type.template) };
  const { spec } = split(stored);
  const missing = type.keys.length > 0 && !type.keys.some((key) => key in spec);
  return { ...form, spec: missing ? { ...spec, ...structuredClone(type.template) } : spec };
}

/** The edited check: the first item of `spec[key]`. */
export function checkItem(spec: JsonObject, key: string): JsonObject {
  const list = spec[key];
  return Array.isArray(list) && isObject(list[0]) ? list[0] : {};
}

export function withCheckItem(spec: JsonObject, key: string, item: JsonObject): JsonObject {
  const list = Array.isArray(spec[key]) ? [...(spec[key] as unknown[])] : [];
  list[0] = item;
  return { ...spec, [key]: list };
}

// --- paths ----------------------------------------------------------------

export function getPath(obj: JsonObject, path: string): unknown {
  let at: unknown = obj;
  for (const part of path.split('.')) {
    if (!isObject(at)) return undefined;
    at = at[part];
  }
  return at;
}

/** A copy with the value at `path` set; undefined or '' removes it. Parents
 * are created as needed and kept when emptied. */
export function setPath(obj: JsonObject, path: string, value: unknown): JsonObject {
  const [head, ...rest] = path.split('.') as [string, ...string[]];
  if (rest.length > 0) return { ...obj, [head]: setPath(isObject(obj[head]) ? obj[head] : {}, rest.join('.'), value) };
  return value === undefined || value === '' ? omit(obj, [head]) : { ...obj, [head]: value };
}

/** A field's value, read from its alias while it has none. */
export function readField(item: JsonObject, field: Pick<Input, 'path' | 'alias'>): unknown {
  const value = getPath(item, field.path);
  return value === undefined && field.alias ? getPath(item, field.alias) : value;
}

export function writeField(item: JsonObject, field: Pick<Input, 'path' | 'alias'>, value: unknown): JsonObject {
  const written = setPath(item, field.path, value);
  return field.alias ? setPath(written, field.alias, undefined) : written;
}

// --- values -----------------------------------------------------------------

/** Typed number text: an integer when it reads as a number, the text itself
 * otherwise (so that validation can say so), nothing when blank. */
export function numberValue(text: string): number | string | undefined {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  const n = Number(trimmed);
  return Number.isFinite(n) ? Math.trunc(n) : text;
}

/** The text of a plain value; objects (e.g. secret references) show as none. */
export function valueText(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

/** The literal value of an EnvVar (`{value}`), or of a plain string. */
export function envText(env: unknown): string {
  if (typeof env === 'string') return env;
  return isObject(env) && typeof env.value === 'string' ? env.value : '';
}

/** Whether an EnvVar takes its value from a secret or config map. */
export function isEnvReference(env: unknown): boolean {
  return isObject(env) && env.valueFrom !== undefined;
}

export function envValue(text: string): JsonObject | undefined {
  return text ? { value: text } : undefined;
}

export function listText(value: unknown): string {
  return Array.isArray(value) ? value.join(', ') : '';
}

export function listValue(text: string): string[] | undefined {
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return items.length ? items : undefined;
}

/** Headers (`[{name, value}]`) or a map (`{key: value}`) as key/value rows. */
export function pairRows(value: unknown, shape: 'list' | 'map'): LabelRow[] {
  if (shape === 'list') {
    return Array.isArray(value) ? value.filter(isObject).map((p) => ({ key: valueText(p.name), value: envText(p) })) : [];
  }
  return isObject(value) ? Object.entries(value).map(([key, v]) => ({ key, value: valueText(v) })) : [];
}

/** Rows back: the list keeps every row (one may be half typed); the map only
 * named ones. */
export function pairsValue(rows: readonly LabelRow[], shape: 'list' | 'map'): unknown {
  if (rows.length === 0) return undefined;
  if (shape === 'list') return rows.map((r) => ({ name: r.key, value: r.value }));
  const named = rows.filter((r) => r.key.trim());
  return named.length ? Object.fromEntries(named.map((r) => [r.key.trim(), r.value])) : undefined;
}

// --- selectors --------------------------------------------------------------

/** Which authentication an item uses: an NTLM flag, else credentials mean basic. */
export function authKind(item: JsonObject): AuthKind {
  if (item.ntlmv2 === true) return 'ntlmv2';
  if (item.ntlm === true) return 'ntlm';
  return item.username !== undefined || item.password !== undefined ? 'basic' : 'none';
}

/** Choosing an authentication clears the other flags and sets its own; None
 * also drops the credentials. */
export function setAuthKind(item: JsonObject, kind: AuthKind): JsonObject {
  const rest = omit(item, ['ntlm', 'ntlmv2']);
  if (kind === 'none') return omit(rest, ['username', 'password']);
  if (kind === 'ntlm') return { ...rest, ntlm: true };
  if (kind === 'ntlmv2') return { ...rest, ntlmv2: true };
  return rest;
}

const SCRIPT_KEYS: readonly Exclude<ScriptKind, 'none'>[] = ['template', 'javascript', 'expr', 'jsonPath'];

export function scriptKind(item: JsonObject, path: string): ScriptKind {
  const script = item[path];
  return (isObject(script) && SCRIPT_KEYS.find((key) => key in script)) || 'none';
}

export function scriptText(item: JsonObject, path: string): string {
  const kind = scriptKind(item, path);
  return kind === 'none' ? '' : valueText((item[path] as JsonObject)[kind]);
}

/** Changing the kind starts an empty expression of that kind. */
export function setScriptKind(item: JsonObject, path: string, kind: ScriptKind): JsonObject {
  return setPath(item, path, kind === 'none' ? undefined : { [kind]: '' });
}

export function setScriptText(item: JsonObject, path: string, text: string): JsonObject {
  const kind = scriptKind(item, path);
  return kind === 'none' ? item : { ...item, [path]: { [kind]: text } };
}

export function connectionKind(item: JsonObject): string {
  return FOLDER_CONNECTIONS.find((c) => c.key in item)?.id ?? 'none';
}

/** Only one folder connection at a time: choosing one drops the others. */
export function setConnectionKind(item: JsonObject, id: string): JsonObject {
  const rest = omit(
    item,
    FOLDER_CONNECTIONS.map((c) => c.key),
  );
  const chosen = FOLDER_CONNECTIONS.find((c) => c.id === id);
  return chosen ? { ...rest, [chosen.key]: {} } : rest;
}

/** GET and DELETE send no body: choosing them drops it. */
export function setMethod(item: JsonObject, method: string): JsonObject {
  const next = setPath(item, 'method', method);
  return method === 'POST' || method === 'PUT' ? next : setPath(next, 'body', undefined);
}

// --- code fields ------------------------------------------------------------

/** Text typed in a code field: YAML or JSON (a YAML subset). Anything that
 * does not parse to a mapping is ignored (undefined). Empty text is `{}`. */
export function parseCode(text: string): JsonObject | undefined {
  if (!text.trim()) return {};
  try {
    const value: unknown = parse(text);
    if (value === null) return {};
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Labels typed as JSON (or YAML): a mapping of scalars, as strings. */
export function parseLabels(text: string): Record<string, string> | undefined {
  const value = parseCode(text);
  if (!value) return undefined;
  const entries = Object.entries(value);
  if (!entries.every(([, v]) => ['string', 'number', 'boolean'].includes(typeof v))) return undefined;
  return Object.fromEntries(entries.map(([k, v]) => [k, String(v)]));
}

export function labelsText(labels: Record<string, string>): string {
  return Object.keys(labels).length ? JSON.stringify(labels, null, 2) : '';
}

/** The spec for the Code tab and the Specs editor. */
export function codeText(form: CanaryForm): string {
  return toYamlText(form.spec);
}

/** A parsed code field into the form: a schedule or icon typed there moves to
 * its field above. */
export function applyCode(form: CanaryForm, value: JsonObject): CanaryForm {
  const { schedule, icon, spec } = split(value);
  return { ...form, schedule: schedule || form.schedule, icon: icon || form.icon, spec };
}

// --- saving -----------------------------------------------------------------

/** Drops Test/Display/Transform left without an expression. */
function withoutEmptyScripts(item: JsonObject): JsonObject {
  let out = item;
  for (const path of ['test', 'display', 'transform']) {
    if (scriptKind(out, path) !== 'none' && !scriptText(out, path).trim()) out = setPath(out, path, undefined);
  }
  return out;
}

/** The spec to store: schedule and icon back in, and for a form type its
 * check named after the canary unless named. */
export function canarySpec(form: CanaryForm, type: CheckType): JsonObject {
  let spec = form.spec;
  const key = type.form ? type.keys[0] : undefined;
  if (key) {
    const item = withoutEmptyScripts(checkItem(spec, key));
    spec = withCheckItem(spec, key, valueText(item.name).trim() ? item : { ...item, name: form.name.trim() });
  }
  return { ...(form.schedule.trim() && { schedule: form.schedule.trim() }), ...(form.icon.trim() && { icon: form.icon.trim() }), ...spec };
}

/** The body of POST /api/db/canaries. */
export function createBody(form: CanaryForm, type: CheckType): JsonObject {
  return {
    name: form.name.trim(),
    namespace: form.namespace.trim() || DEFAULT_NAMESPACE,
    labels: form.labels,
    spec: canarySpec(form, type),
    source: UI_SOURCE,
  };
}

/** The body of PATCH /api/db/canaries?id=eq.<id>: name and namespace stay. */
export function updateBody(form: CanaryForm, type: CheckType): JsonObject {
  return { labels: form.labels, spec: canarySpec(form, type) };
}
