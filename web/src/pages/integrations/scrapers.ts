/** The catalog scraper form: a type, a few fields per type, and the
 * ScrapeConfig spec they make (crds/src/scrape_config.rs: settings such as
 * `schedule` beside one list per scraper kind, e.g. `kubernetes: [{...}]`). */
import { parseYamlObject, toYamlText, type JsonObject } from '../../lib/yamlText';
import type { ConnectionTypeId } from '../connections/useConnectionsData';

export type FieldKind = 'text' | 'number' | 'list' | 'multiline';

export interface ScraperField {
  /** Path inside the scraper entry; dots make nested objects (`selector.kind`). */
  path: string;
  label: string;
  kind: FieldKind;
  required?: boolean;
  /** Pre-filled on a new scraper. */
  initial?: string;
  helper?: string;
  /** A `connection://namespace/name` field offering saved connections of these types. */
  connectionTypes?: readonly ConnectionTypeId[];
}

export interface ScraperType {
  /** The spec key of the scraper kind; 'custom' is raw YAML. */
  key: string;
  label: string;
  fields: ScraperField[];
}

const connection = (...types: ConnectionTypeId[]): ScraperField => ({
  path: 'connection',
  label: 'Connection',
  kind: 'text',
  helper: 'connection://namespace/name',
  connectionTypes: types,
});

/** Sorted by label as the spec lists them (part 2 section 2.5). */
export const SCRAPER_TYPES: readonly ScraperType[] = [
  {
    key: 'azure',
    label: 'Azure',
    fields: [
      connection('azure'),
      { path: 'subscriptionID', label: 'Subscription ID', kind: 'text' },
      { path: 'tenantID', label: 'Tenant ID', kind: 'text' },
    ],
  },
  {
    key: 'azureDevops',
    label: 'Azure DevOps',
    fields: [
      connection('azure_devops'),
      { path: 'organization', label: 'Organization', kind: 'text', required: true },
      { path: 'projects', label: 'Projects', kind: 'list', helper: 'Comma separated' },
    ],
  },
  {
    key: 'aws',
    label: 'AWS',
    fields: [connection('aws'), { path: 'region', label: 'Regions', kind: 'list', helper: 'Comma separated, e.g. eu-west-1, us-east-1' }],
  },
  { key: 'custom', label: 'Custom', fields: [] },
  {
    key: 'file',
    label: 'File',
    fields: [
      { path: 'type', label: 'Config type', kind: 'text' },
      { path: 'paths', label: 'Paths', kind: 'list', helper: 'Comma separated globs' },
      { path: 'url', label: 'URL', kind: 'text' },
    ],
  },
  {
    key: 'githubActions',
    label: 'Github Actions',
    fields: [
      { path: 'owner', label: 'Owner', kind: 'text', required: true },
      { path: 'repository', label: 'Repository', kind: 'text', required: true },
      connection('github'),
      { path: 'workflows', label: 'Workflows', kind: 'list', helper: 'Comma separated' },
    ],
  },
  {
    key: 'http',
    label: 'HTTP',
    fields: [{ path: 'url', label: 'URL', kind: 'text', required: true }, connection('http')],
  },
  {
    key: 'kubernetes',
    label: 'Kubernetes',
    fields: [
      { path: 'clusterName', label: 'Cluster name', kind: 'text', required: true },
      { path: 'namespace', label: 'Cluster namespace', kind: 'text', helper: 'Empty for all namespaces' },
      { path: 'maxInflight', label: 'Max in flight', kind: 'number', initial: '64' },
    ],
  },
  {
    key: 'kubernetesFile',
    label: 'Kubernetes File',
    fields: [
      { path: 'selector.namespace', label: 'Pod namespace', kind: 'text' },
      { path: 'selector.labelSelector', label: 'Pod label selector', kind: 'text', required: true },
      { path: 'container', label: 'Container', kind: 'text' },
    ],
  },
  {
    key: 'sql',
    label: 'SQL',
    fields: [
      { ...connection('postgres', 'mysql', 'sql_server'), required: true },
      { path: 'driver', label: 'Driver', kind: 'text', helper: 'postgres, mysql or sqlserver' },
      { path: 'query', label: 'Query', kind: 'multiline', required: true },
    ],
  },
  {
    key: 'trivy',
    label: 'Trivy',
    fields: [
      { path: 'version', label: 'Trivy version', kind: 'text' },
      { path: 'severity', label: 'Severities', kind: 'list', helper: 'Comma separated, e.g. HIGH, CRITICAL' },
    ],
  },
];

export const CUSTOM = 'custom';

/** Schedules offered for scrapers. */
export const SCRAPER_SCHEDULES = ['@every 15m', '@every 30m', '@hourly', '@every 2h', '@every 4h', '@daily'] as const;

/** Spec keys that are settings of the whole ScrapeConfig, not a scraper kind. */
const SETTINGS_KEYS = ['schedule', 'retention', 'full', 'timeout', 'crdSync', 'system', 'logLevel'];

export function scraperType(key: string): ScraperType {
  return SCRAPER_TYPES.find((t) => t.key === key) ?? (SCRAPER_TYPES.find((t) => t.key === CUSTOM) as ScraperType);
}

export interface ScraperForm {
  type: string;
  schedule: string;
  /** Field values as typed, by path. */
  fields: Record<string, string>;
  /** The Custom type's spec as YAML. */
  yaml: string;
  /** The spec being edited (empty for a new scraper): kept apart from what the fields set. */
  base: JsonObject;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The type an existing spec selects: its first key that is not a setting
 * (schedule, retention, …), when the form knows that kind; otherwise Custom. */
export function detectScraperType(spec: unknown): string {
  if (!isObject(spec)) return CUSTOM;
  const key = Object.keys(spec).find((k) => !SETTINGS_KEYS.includes(k));
  return key && SCRAPER_TYPES.some((t) => t.key === key) && Array.isArray(spec[key]) ? key : CUSTOM;
}

function withoutSchedule(spec: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(spec).filter(([k]) => k !== 'schedule'));
}

function getPath(object: JsonObject, path: string): unknown {
  return path.split('.').reduce<unknown>((at, part) => (isObject(at) ? at[part] : undefined), object);
}

function setPath(object: JsonObject, path: string, value: unknown): void {
  const parts = path.split('.');
  const last = parts.pop() as string;
  let at = object;
  for (const part of parts) {
    if (!isObject(at[part])) at[part] = {};
    at = at[part] as JsonObject;
  }
  at[last] = value;
}

function deletePath(object: JsonObject, path: string): void {
  const parts = path.split('.');
  const last = parts.pop() as string;
  const parent = parts.length ? getPath(object, parts.join('.')) : object;
  if (isObject(parent)) Reflect.deleteProperty(parent, last);
  // Drop parents left empty.
  if (parts.length && isObject(parent) && Object.keys(parent).length === 0) deletePath(object, parts.join('.'));
}

function fieldText(field: ScraperField, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (field.kind === 'list' && Array.isArray(value)) return value.map(String).join(', ');
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function fieldValue(field: ScraperField, text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  switch (field.kind) {
    case 'number': {
      const n = Number(trimmed);
      return Number.isFinite(n) ? n : trimmed;
    }
    case 'list': {
      const items = trimmed
        .split(/[,\n]/)
        .map((s) => s.trim())
        .filter(Boolean);
      return items.length ? items : undefined;
    }
    case 'multiline':
      return text;
    default:
      return trimmed;
  }
}

/** An empty form for a new scraper of a type. */
export function newScraperForm(type: string = 'kubernetes'): ScraperForm {
  const fields: Record<string, string> = {};
  for (const f of scraperType(type).fields) fields[f.path] = f.initial ?? '';
  return { type, schedule: '', fields, yaml: '', base: {} };
}

/** The form for an existing spec. */
export function parseScraperSpec(spec: unknown): ScraperForm {
  const base = isObject(spec) ? structuredClone(spec) : {};
  const type = detectScraperType(base);
  const schedule = typeof base.schedule === 'string' ? base.schedule : '';
  const fields: Record<string, string> = {};
  if (type !== CUSTOM) {
    const entries = base[type] as unknown[];
    const first = isObject(entries[0]) ? entries[0] : {};
    for (const f of scraperType(type).fields) fields[f.path] = fieldText(f, getPath(first, f.path));
  }
  return { type, schedule, fields, yaml: type === CUSTOM ? toYamlText(withoutSchedule(base)) : '', base };
}

/** Switching type keeps the schedule; Custom starts from the spec built so far. */
export function changeScraperType(form: ScraperForm, type: string): ScraperForm {
  if (type === form.type) return form;
  if (type === CUSTOM) {
    const built = buildScraperSpec(form).spec ?? form.base;
    return { ...form, type, yaml: toYamlText(withoutSchedule(built)), fields: {} };
  }
  const sameAsBase = detectScraperType(form.base) === type;
  const fields = sameAsBase ? parseScraperSpec(form.base).fields : newScraperForm(type).fields;
  return { ...form, type, fields };
}

export interface BuiltSpec {
  spec?: JsonObject;
  /** Problems by field path ('yaml' for the Custom editor). */
  errors: Record<string, string>;
}

/** The ScrapeConfig spec of the form. Whatever the form does not show (other
 * settings, other fields of the entry, further entries) is kept from `base`. */
export function buildScraperSpec(form: ScraperForm): BuiltSpec {
  const errors: Record<string, string> = {};
  let spec: JsonObject;
  if (form.type === CUSTOM) {
    const parsed = parseYamlObject(form.yaml);
    if (parsed.error !== undefined) return { errors: { yaml: parsed.error } };
    spec = structuredClone(parsed.value);
    if (!Object.keys(spec).some((k) => !SETTINGS_KEYS.includes(k))) errors.yaml = 'Add at least one scraper, e.g. kubernetes: [...]';
  } else {
    const type = scraperType(form.type);
    const baseType = detectScraperType(form.base);
    spec = structuredClone(form.base);
    if (baseType !== CUSTOM && baseType !== form.type) Reflect.deleteProperty(spec, baseType);
    const existing = baseType === form.type ? (spec[form.type] as unknown[]) : [];
    const entry: JsonObject = isObject(existing[0]) ? existing[0] : {};
    for (const field of type.fields) {
      const value = fieldValue(field, form.fields[field.path] ?? '');
      if (value === undefined) {
        deletePath(entry, field.path);
        if (field.required) errors[field.path] = `${field.label} is required`;
      } else {
        setPath(entry, field.path, value);
        if (field.kind === 'number' && typeof value !== 'number') errors[field.path] = `${field.label} must be a number`;
      }
    }
    spec[form.type] = [entry, ...existing.slice(1)];
  }
  // The schedule picker wins; a Custom spec may also carry its own.
  if (form.schedule) spec = { schedule: form.schedule, ...withoutSchedule(spec) };
  else if (form.type !== CUSTOM) delete spec.schedule;
  return Object.keys(errors).length ? { errors } : { spec, errors };
}
