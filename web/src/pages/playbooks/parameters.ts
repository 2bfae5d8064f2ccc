import { parse } from 'yaml';
import { toYaml } from '../../lib/yamlText';
import { MESSAGES as RULES } from '../../api/rules.gen';

/** A playbook parameter as its spec writes it (spec part 2, 3.5). */
export interface PlaybookParameter {
  name: string;
  label?: string;
  description?: string;
  type?: ParameterType;
  default?: unknown;
  required?: boolean;
  properties?: ParameterProperties;
}

export type ParameterType =
  | 'check'
  | 'checkbox'
  | 'code'
  | 'component'
  | 'config'
  | 'configs'
  | 'duration'
  | 'list'
  | 'people'
  | 'team'
  | 'text'
  | 'bytes'
  | 'millicores'
  | 'secret';

export interface ParameterProperties {
  size?: string;
  language?: string;
  jsonSchemaUrl?: string;
  options?: ({ label?: string; value: string } | string)[];
  filter?: unknown;
  multiline?: boolean | string;
  maxLength?: number | string;
  minLength?: number | string;
  regex?: string;
  format?: string;
  min?: number | string;
  max?: number | string;
}

/** A form's value: text for most types, a boolean for a checkbox, ids for configs. */
export type ParamValue = string | boolean | string[];

const BYTES = /^(\d+(?:\.\d+)?)\s*(Mi|Gi|Ti)?$/;
const MILLICORES = /^(\d+(?:\.\d+)?)m$/;
const DNS1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** A Go duration, as the server reads it. */
const DURATION = /^(0|(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+)$/;

/** The server's messages (store playbook_params), so the form and a refused run read alike. */
export const MESSAGES = {
  required: RULES.form.fieldRequired,
  number: RULES.form.fieldNotANumber,
  dns1123: "Must consist of lowercase alphanumerics, '-' or '.', each label starting and ending with an alphanumeric",
  bytes: 'Must be a number with unit Mi, Gi or Ti, e.g. 512Mi',
  millicores: 'Must be a number of millicores with suffix m, e.g. 500m',
  duration: 'Must be a duration such as 30s, 5m or 1h30m',
} as const;
const UNIT_MI: Record<string, number> = { Mi: 1, Gi: 1024, Ti: 1024 * 1024 };

export const typeOf = (p: PlaybookParameter): ParameterType => p.type ?? 'text';
export const labelOf = (p: PlaybookParameter): string => p.label || p.name;

export function isMultiline(p: PlaybookParameter): boolean {
  const m = p.properties?.multiline;
  return m === true || m === 'true';
}

/** Bytes in Mi: a number with Mi, Gi or Ti (Mi when no unit). */
export function bytesInMi(value: string): number | undefined {
  const match = BYTES.exec(value.trim());
  return match ? Number(match[1]) * (UNIT_MI[match[2] ?? 'Mi'] ?? 1) : undefined;
}

/** Millicores: a number with the suffix m. */
export function millicores(value: string): number | undefined {
  const match = MILLICORES.exec(value.trim());
  return match ? Number(match[1]) : undefined;
}

/** A min or max: a number (of Mi, of millicores) or a value in the type's units. */
const bound = (read: (text: string) => number | undefined) => (b: number | string | undefined) =>
  typeof b === 'number' ? b : b === undefined ? undefined : read(b);

const num = (v: number | string | undefined) => (v === undefined || v === '' ? undefined : Number(v));

function range(value: number, min: number | undefined, max: number | undefined, raw: ParameterProperties): string | undefined {
  if (min !== undefined && value < min) return `Must be at least ${String(raw.min)}`;
  if (max !== undefined && value > max) return `Must be at most ${String(raw.max)}`;
  return undefined;
}

function textProblem(p: PlaybookParameter, text: string): string | undefined {
  const props = p.properties ?? {};
  const min = num(props.minLength);
  const max = num(props.maxLength);
  if (min !== undefined && text.length < min) return `Must be at least ${min} characters`;
  if (max !== undefined && text.length > max) return `Must be at most ${max} characters`;
  if (props.regex) {
    let re: RegExp | undefined;
    try {
      re = new RegExp(`^(?:${props.regex})$`);
    } catch {
      re = undefined;
    }
    if (re && !re.test(text)) return `Must match the pattern ${props.regex}`;
  }
  if (isMultiline(p)) return undefined;
  switch (props.format) {
    case 'dns1123':
      return DNS1123.test(text) && text.length <= 253 ? undefined : MESSAGES.dns1123;
    case 'number': {
      const n = Number(text);
      if (!text.trim() || Number.isNaN(n)) return MESSAGES.number;
      return range(n, num(props.min), num(props.max), props);
    }
    default:
      return undefined;
  }
}

/** The problem with a value by the spec's rules (part 2 section 5), or undefined. */
export function paramProblem(p: PlaybookParameter, value: ParamValue | undefined): string | undefined {
  const type = typeOf(p);
  if (type === 'checkbox') return undefined;
  const empty = value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
  if (empty || (typeof value === 'string' && !value.trim())) return p.required ? MESSAGES.required : undefined;
  if (Array.isArray(value) || typeof value === 'boolean') return undefined;
  const props = p.properties ?? {};
  switch (type) {
    case 'bytes': {
      const mi = bytesInMi(value);
      if (mi === undefined) return MESSAGES.bytes;
      const read = bound(bytesInMi);
      return range(mi, read(props.min), read(props.max), props);
    }
    case 'millicores': {
      const m = millicores(value);
      if (m === undefined) return MESSAGES.millicores;
      const read = bound(millicores);
      return range(m, read(props.min), read(props.max), props);
    }
    case 'duration':
      return DURATION.test(value.trim()) ? undefined : MESSAGES.duration;
    case 'code':
      return codeProblem(props.language, value);
    case 'text':
    case 'secret':
      return textProblem(p, value);
    default:
      return undefined;
  }
}

function codeProblem(language: string | undefined, text: string): string | undefined {
  try {
    if (language === 'json') JSON.parse(text);
    else if (language === 'yaml') parse(text);
  } catch {
    return `Must be valid ${language === 'json' ? 'JSON' : 'YAML'}`;
  }
  return undefined;
}

/** A default as the form holds it: a code default that is an object is written in its language. */
export function initialValue(p: PlaybookParameter): ParamValue {
  const type = typeOf(p);
  const d = p.default;
  if (type === 'checkbox') return d === true || d === 'true';
  if (type === 'configs') return Array.isArray(d) ? d.map(String) : typeof d === 'string' && d ? [d] : [];
  if (d === undefined || d === null) return '';
  if (type === 'code' && typeof d === 'object') return p.properties?.language === 'json' ? JSON.stringify(d, null, 2) : toYaml(d);
  return typeof d === 'string' ? d : JSON.stringify(d);
}

export function initialValues(params: readonly PlaybookParameter[]): Record<string, ParamValue> {
  return Object.fromEntries(params.map((p) => [p.name, initialValue(p)]));
}

/** Each parameter's problem, by name; empty when the form is valid. */
export function formProblems(params: readonly PlaybookParameter[], values: Record<string, ParamValue>): Record<string, string> {
  const problems: Record<string, string> = {};
  for (const p of params) {
    const problem = paramProblem(p, values[p.name]);
    if (problem) problems[p.name] = problem;
  }
  return problems;
}

/** The values sent to the server: a checkbox as "true"/"false", bytes without a unit as Mi. */
export function requestParams(params: readonly PlaybookParameter[], values: Record<string, ParamValue>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of params) {
    const v = values[p.name];
    if (v === undefined || v === '') continue;
    if (typeOf(p) === 'checkbox') out[p.name] = String(v === true);
    else if (typeOf(p) === 'bytes' && typeof v === 'string' && /^\d+(\.\d+)?$/.test(v.trim())) out[p.name] = `${v.trim()}Mi`;
    else out[p.name] = v;
  }
  return out;
}

/** The options of a list parameter. */
export function listOptions(p: PlaybookParameter): { value: string; label: string }[] {
  return (p.properties?.options ?? []).map((o) =>
    typeof o === 'string' ? { value: o, label: o } : { value: o.value, label: o.label ?? o.value },
  );
}
