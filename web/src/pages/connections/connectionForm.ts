/** The connection form's state, checks and request body, generated from a
 * type's fields in the catalogue (connections.gen.ts). Secret fields hold a
 * static value or a Secret/ConfigMap key reference; a stored static value is
 * never sent back to the browser, only that it is set. */
import type { ConnectionTypeInfo } from '../../api/connections.gen';
import { ApiError } from '../../api/errors';
import { MESSAGES } from '../../api/rules.gen';

export type FieldInfo = ConnectionTypeInfo['fields'][number];
export type Scalar = string | number | boolean;

export interface KeyRef {
  name: string;
  key: string;
}

/** How the API shows a stored field (GET /api/connections/{id}). */
export type FieldView =
  { value: Scalar } | { set: boolean } | { valueFrom: { secretKeyRef: KeyRef } } | { valueFrom: { configMapKeyRef: KeyRef } };

/** What the form sends for a field (POST and PUT /api/connections). */
export type FieldInput = { value: Scalar } | { valueFrom: { secretKeyRef: KeyRef } } | { valueFrom: { configMapKeyRef: KeyRef } };

const { fieldRequired: REQUIRED, fieldNotANumber: NOT_A_NUMBER } = MESSAGES.form;

/** Where a secret field's value comes from. */
export type ValueSource = 'static' | 'secret' | 'configmap';
export const VALUE_SOURCES: readonly { id: ValueSource; label: string }[] = [
  { id: 'static', label: 'Static value' },
  { id: 'secret', label: 'Secret key' },
  { id: 'configmap', label: 'ConfigMap key' },
];

export interface SecretState {
  source: ValueSource;
  /** The static value typed; empty while a stored one is kept. */
  value: string;
  /** A static value is stored and the admin has not chosen to replace it. */
  stored: boolean;
  ref: KeyRef;
}

/** Form values: text as typed, checkboxes, secrets. */
export type FieldState = string | boolean | SecretState;

export interface FormState {
  name: string;
  namespace: string;
  fields: Record<string, FieldState>;
}

export const DEFAULT_NAMESPACE = 'default';

/** The types an admin may add, sorted by title (hidden ones, JMeter, left out). */
export function offeredTypes(types: readonly ConnectionTypeInfo[], search = ''): ConnectionTypeInfo[] {
  const words = search.trim().toLowerCase();
  return types
    .filter((t) => !t.hidden)
    .filter((t) => !words || t.title.toLowerCase().includes(words) || t.id.includes(words))
    .sort((a, b) => a.title.localeCompare(b.title, 'en'));
}

export function isSecret(state: FieldState | undefined): state is SecretState {
  return typeof state === 'object' && state !== null;
}

const emptySecret = (): SecretState => ({ source: 'static', value: '', stored: false, ref: { name: '', key: '' } });

function initialValue(field: FieldInfo): FieldState {
  if (field.kind === 'secret') return emptySecret();
  if (field.kind === 'boolean') return field.default === true || field.default === 'true';
  return field.default === undefined ? '' : String(field.default);
}

/** A field's state in the form (its initial one if the form lacks it). */
export function stateOf(form: FormState, field: FieldInfo): FieldState {
  return form.fields[field.key] ?? initialValue(field);
}

function fromView(field: FieldInfo, view: FieldView | undefined): FieldState {
  if (!view) return field.kind === 'secret' ? emptySecret() : initialValue({ ...field, default: undefined });
  if ('valueFrom' in view) {
    const secret = 'secretKeyRef' in view.valueFrom;
    const ref = 'secretKeyRef' in view.valueFrom ? view.valueFrom.secretKeyRef : view.valueFrom.configMapKeyRef;
    return { ...emptySecret(), source: secret ? 'secret' : 'configmap', ref: { ...ref } };
  }
  if ('set' in view) return { ...emptySecret(), stored: view.set };
  if (field.kind === 'boolean') return view.value === true || view.value === 'true';
  return String(view.value);
}

/** A new connection of `type` (defaults filled), or the stored one. */
export function initialForm(
  type: ConnectionTypeInfo,
  stored?: { name: string; namespace: string; fields: Record<string, FieldView> },
): FormState {
  const fields: Record<string, FieldState> = {};
  for (const field of type.fields) fields[field.key] = stored ? fromView(field, stored.fields[field.key]) : initialValue(field);
  return { name: stored?.name ?? '', namespace: stored?.namespace ?? DEFAULT_NAMESPACE, fields };
}

function isBlank(state: FieldState | undefined): boolean {
  if (state === undefined) return true;
  if (isSecret(state)) {
    if (state.source === 'static') return !state.stored && !state.value;
    return false;
  }
  return typeof state === 'string' && !state.trim();
}

/** Problems by key (`name`, `namespace`, field keys), as the server words them. */
export function validate(type: ConnectionTypeInfo, form: FormState): Record<string, string> {
  const errors: Record<string, string> = {};
  if (!form.name.trim()) errors.name = REQUIRED;
  if (!form.namespace.trim()) errors.namespace = REQUIRED;
  for (const field of type.fields) {
    const state = form.fields[field.key];
    if (isSecret(state) && state.source !== 'static') {
      if (!state.ref.name.trim() || !state.ref.key.trim()) errors[field.key] = REQUIRED;
    } else if (field.required && isBlank(state)) {
      errors[field.key] = REQUIRED;
    } else if (field.kind === 'number' && typeof state === 'string' && state.trim() && !Number.isFinite(Number(state))) {
      errors[field.key] = NOT_A_NUMBER;
    }
  }
  return errors;
}

function toInput(field: FieldInfo, state: FieldState | undefined): FieldInput | undefined {
  if (state === undefined) return undefined;
  if (isSecret(state)) {
    const ref = { name: state.ref.name.trim(), key: state.ref.key.trim() };
    if (state.source === 'secret') return { valueFrom: { secretKeyRef: ref } };
    if (state.source === 'configmap') return { valueFrom: { configMapKeyRef: ref } };
    // Left out, a stored value is kept (PUT); an empty one stays unset.
    return state.value ? { value: state.value } : undefined;
  }
  if (typeof state === 'boolean') return { value: state };
  const text = state.trim();
  if (!text) return undefined;
  return { value: field.kind === 'number' ? Number(text) : text };
}

/** The body of POST and PUT /api/connections. */
export function requestBody(type: ConnectionTypeInfo, form: FormState) {
  const fields: Record<string, FieldInput> = {};
  for (const field of type.fields) {
    const input = toInput(field, form.fields[field.key]);
    if (input) fields[field.key] = input;
  }
  return { name: form.name.trim(), namespace: form.namespace.trim() || DEFAULT_NAMESPACE, type: type.id, fields };
}

/** A 400's problems by key: `{"error": ..., "fields": {"<key>": "..."}}`. */
export function serverFieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError) || error.status !== 400) return {};
  const fields = (error.body as { fields?: unknown } | null)?.fields;
  if (typeof fields !== 'object' || fields === null) return {};
  return Object.fromEntries(Object.entries(fields).filter((e): e is [string, string] => typeof e[1] === 'string'));
}
