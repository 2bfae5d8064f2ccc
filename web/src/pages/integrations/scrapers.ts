/** The catalog scraper form: a type, a few fields per type, and the
 * ScrapeConfig spec they make (crds/src/scrape_config.rs: settings such as
 * `schedule` beside one list per scraper kind, e.g. `kubernetes: [{...}]`). */
// The chart's CRD, generated from the crds crate: the one copy of the schema.
import crdYaml from '../../../../charts/quarterdeck/crds/scrapeconfigs.quarterdeck.dev.yaml?raw';
import { MESSAGES } from '../../api/rules.gen';
import { crdSpecSchema, schemaProblems } from '../../components/resource-editor/specSchema';
import { parseYamlObject, toYamlText, type JsonObject } from '../../lib/yamlText';
import type { ConnectionTypeId } from '../connections/useConnectionsData';

const SCRAPE_CONFIG_SPEC_SCHEMA = crdSpecSchema(crdYaml);

export type FieldKind = 'text' | 'number' | 'list' | 'multiline';

export interface ScraperField {
  /** Path inside the entry; dots make nested objects (`selector.kind`). */
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

/** The common `type` and `id` of the items a scraper makes (scrapers/src/base.rs). */
const ITEM_TYPE: ScraperField = {
  path: 'type',
  label: 'Item type',
  kind: 'text',
  required: true,
  helper: 'A fixed type such as File::Config, or a JSONPath such as $.kind',
};
const ITEM_ID: ScraperField = {
  path: 'id',
  label: 'Item ID',
  kind: 'text',
  required: true,
  helper: 'A JSONPath such as $.id, or a fixed value',
};

/** Sorted by label as the spec lists them (part 2 section 2.5); `required`
 * as its validation rules say (part 2 section 5). */
export const SCRAPER_TYPES: readonly ScraperType[] = [
  {
    key: 'azure',
    label: 'Azure',
    fields: [
      { ...connection('azure'), required: true },
      { path: 'subscriptionID', label: 'Subscription ID', kind: 'text' },
      { path: 'tenantID', label: 'Tenant ID', kind: 'text' },
    ],
  },
  {
    key: 'azureDevops',
    label: 'Azure DevOps',
    fields: [
      connection('azure_devops'),
      { path: 'organization', label: 'Organization', kind: 'text' },
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
      { ...ITEM_TYPE, required: false },
      { ...ITEM_ID, required: false },
      { path: 'paths', label: 'Paths', kind: 'list', helper: 'Comma separated globs' },
      { path: 'url', label: 'URL', kind: 'text' },
      { path: 'format', label: 'Format', kind: 'text', required: true, helper: 'json, yaml or properties' },
      { path: 'icon', label: 'Icon', kind: 'text', required: true },
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
    fields: [{ path: 'url', label: 'URL', kind: 'text', required: true }, ITEM_TYPE, ITEM_ID, connection('http')],
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
      ITEM_TYPE,
      ITEM_ID,
      { path: 'selector.namespace', label: 'Pod namespace', kind: 'text' },
      { path: 'selector.labelSelector', label: 'Pod label selector', kind: 'text' },
      { path: 'container', label: 'Container', kind: 'text' },
    ],
  },
  {
    key: 'sql',
    label: 'SQL',
    fields: [
      ITEM_TYPE,
      ITEM_ID,
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

/** The lists of a spec's `retention` (scrapers/src/retention.rs); each entry names what it keeps. */
export const RETENTION_LISTS = [
  {
    key: 'changes',
    label: 'Changes',
    entry: 'Change retention',
    fields: [
      { path: 'name', label: 'Change type', kind: 'text', required: true },
      { path: 'age', label: 'Age', kind: 'text', helper: 'e.g. 7d' },
      { path: 'count', label: 'Count', kind: 'number' },
    ],
  },
  {
    key: 'types',
    label: 'Item types',
    entry: 'Type retention',
    fields: [
      { path: 'name', label: 'Item type', kind: 'text', required: true },
      { path: 'createdAge', label: 'Created age', kind: 'text' },
      { path: 'updatedAge', label: 'Updated age', kind: 'text' },
      { path: 'deletedAge', label: 'Deleted age', kind: 'text' },
    ],
  },
] as const satisfies readonly { key: string; label: string; entry: string; fields: readonly ScraperField[] }[];

export type RetentionKey = (typeof RETENTION_LISTS)[number]['key'];

/** Spec keys the type is not read from (spec part 2 section 2.5). */
const NOT_A_TYPE = ['schedule', 'retention'];
/** Spec keys that are settings of the whole ScrapeConfig, not a scraper kind. */
const SETTINGS_KEYS = [...NOT_A_TYPE, 'full', 'timeout', 'crdSync', 'system', 'logLevel'];

export function scraperType(key: string): ScraperType {
  return SCRAPER_TYPES.find((t) => t.key === key) ?? (SCRAPER_TYPES.find((t) => t.key === CUSTOM) as ScraperType);
}

/** One retention entry: field values as typed, over the entry it was read from. */
export interface RetentionRow {
  fields: Record<string, string>;
  base: JsonObject;
}

export interface ScraperForm {
  type: string;
  schedule: string;
  /** Field values as typed, by path. */
  fields: Record<string, string>;
  retention: Record<RetentionKey, RetentionRow[]>;
  /** The Custom type's spec as YAML. */
  yaml: string;
  /** The spec being edited (empty for a new scraper): kept apart from what the fields set. */
  base: JsonObject;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The type an existing spec selects: its first key other than schedule and
 * retention, when that is a type the form knows; otherwise Custom. */
export function detectScraperType(spec: unknown): string {
  if (!isObject(spec)) return CUSTOM;
  const key = Object.keys(spec).find((k) => !NOT_A_TYPE.includes(k));
  return SCRAPER_TYPES.find((t) => t.key === key)?.key ?? CUSTOM;
}

/** The entries of a list in the spec; anything but a list has none. */
function listAt(object: JsonObject, key: string): unknown[] {
  const value = object[key];
  return Array.isArray(value) ? value : [];
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

function readFields(fields: readonly ScraperField[], entry: JsonObject): Record<string, string> {
  return Object.fromEntries(fields.map((f) => [f.path, fieldText(f, getPath(entry, f.path))]));
}

/** Writes the typed values into `entry`, noting problems under `prefix` + path.
 * This is where every field's requirement is checked. */
function writeFields(
  fields: readonly ScraperField[],
  values: Record<string, string>,
  entry: JsonObject,
  errors: Record<string, string>,
  prefix = '',
): void {
  for (const field of fields) {
    const value = fieldValue(field, values[field.path] ?? '');
    if (value === undefined) {
      deletePath(entry, field.path);
      if (field.required) errors[prefix + field.path] = MESSAGES.form.fieldRequired;
    } else {
      setPath(entry, field.path, value);
      if (field.kind === 'number' && typeof value !== 'number') errors[prefix + field.path] = MESSAGES.form.fieldNotANumber;
    }
  }
}

const NO_RETENTION: Record<RetentionKey, RetentionRow[]> = { changes: [], types: [] };

/** An empty form for a new scraper of a type. */
export function newScraperForm(type: string = 'kubernetes'): ScraperForm {
  const fields: Record<string, string> = {};
  for (const f of scraperType(type).fields) fields[f.path] = f.initial ?? '';
  return { type, schedule: '', fields, retention: NO_RETENTION, yaml: '', base: {} };
}

function parseRetention(retention: unknown): Record<RetentionKey, RetentionRow[]> {
  const at = isObject(retention) ? retention : {};
  const rows = (list: (typeof RETENTION_LISTS)[number]): RetentionRow[] =>
    listAt(at, list.key).map((entry) => {
      const base = isObject(entry) ? entry : {};
      return { fields: readFields(list.fields, base), base };
    });
  return Object.fromEntries(RETENTION_LISTS.map((list) => [list.key, rows(list)])) as Record<RetentionKey, RetentionRow[]>;
}

/** The form for an existing spec. */
export function parseScraperSpec(spec: unknown): ScraperForm {
  const base = isObject(spec) ? structuredClone(spec) : {};
  const type = detectScraperType(base);
  const schedule = typeof base.schedule === 'string' ? base.schedule : '';
  const first = type === CUSTOM ? undefined : listAt(base, type)[0];
  const fields = type === CUSTOM ? {} : readFields(scraperType(type).fields, isObject(first) ? first : {});
  const retention = parseRetention(structuredClone(base.retention));
  return { type, schedule, fields, retention, yaml: type === CUSTOM ? toYamlText(withoutSchedule(base)) : '', base };
}

export function addRetentionRow(form: ScraperForm, key: RetentionKey): ScraperForm {
  const list = RETENTION_LISTS.find((l) => l.key === key) as (typeof RETENTION_LISTS)[number];
  const row = { fields: Object.fromEntries(list.fields.map((f) => [f.path, ''])), base: {} };
  return { ...form, retention: { ...form.retention, [key]: [...form.retention[key], row] } };
}

export function removeRetentionRow(form: ScraperForm, key: RetentionKey, index: number): ScraperForm {
  return { ...form, retention: { ...form.retention, [key]: form.retention[key].filter((_, i) => i !== index) } };
}

export function setRetentionField(form: ScraperForm, key: RetentionKey, index: number, path: string, value: string): ScraperForm {
  const rows = form.retention[key].map((row, i) => (i === index ? { ...row, fields: { ...row.fields, [path]: value } } : row));
  return { ...form, retention: { ...form.retention, [key]: rows } };
}

/** Switching type keeps the schedule and retention; Custom starts from the spec built so far. */
export function changeScraperType(form: ScraperForm, type: string): ScraperForm {
  if (type === form.type) return form;
  if (type === CUSTOM) {
    const built = assembleSpec(form).spec ?? form.base;
    return { ...form, type, yaml: toYamlText(withoutSchedule(built)), fields: {} };
  }
  const sameAsBase = detectScraperType(form.base) === type;
  const fields = sameAsBase ? parseScraperSpec(form.base).fields : newScraperForm(type).fields;
  return { ...form, type, fields };
}

export interface BuiltSpec {
  spec?: JsonObject;
  /** Problems by field path ('yaml' for the Custom editor, `retention.<list>.<index>.<path>` for retention entries). */
  errors: Record<string, string>;
}

/** `retention` with the form's entries; what the form does not show is kept. */
function buildRetention(base: unknown, rows: ScraperForm['retention'], errors: Record<string, string>): unknown {
  const retention: JsonObject = isObject(base) ? base : {};
  for (const list of RETENTION_LISTS) {
    const entries = rows[list.key].map((row, index) => {
      const entry = structuredClone(row.base);
      writeFields(list.fields, row.fields, entry, errors, `retention.${list.key}.${index}.`);
      return entry;
    });
    if (entries.length || Array.isArray(retention[list.key])) retention[list.key] = entries;
  }
  return isObject(base) || Object.keys(retention).length ? retention : base;
}

/** The spec the form makes, whether or not it is valid (no spec: the Custom YAML does not parse). */
function assembleSpec(form: ScraperForm): BuiltSpec {
  const errors: Record<string, string> = {};
  if (form.type === CUSTOM) {
    const parsed = parseYamlObject(form.yaml);
    if (parsed.error !== undefined) return { errors: { yaml: parsed.error } };
    const spec = structuredClone(parsed.value);
    if (!Object.keys(spec).some((k) => !SETTINGS_KEYS.includes(k))) errors.yaml = 'Add at least one scraper, e.g. kubernetes: [...]';
    // What the ScrapeConfig CRD refuses, one problem a line (its scraper kinds' entries are free-form).
    const problems = schemaProblems(spec, SCRAPE_CONFIG_SPEC_SCHEMA);
    if (problems.length) errors.yaml = problems.join('\n');
    // The schedule picker wins; a Custom spec may also carry its own.
    return { spec: form.schedule ? { schedule: form.schedule, ...withoutSchedule(spec) } : spec, errors };
  }
  const base = structuredClone(form.base);
  const baseType = detectScraperType(base);
  if (baseType !== CUSTOM && baseType !== form.type) Reflect.deleteProperty(base, baseType);
  const existing = baseType === form.type ? listAt(base, form.type) : [];
  const entry: JsonObject = isObject(existing[0]) ? existing[0] : {};
  writeFields(scraperType(form.type).fields, form.fields, entry, errors);
  const retention = buildRetention(base.retention, form.retention, errors);
  // The type's list comes right after schedule and retention, so that the spec selects it again.
  const spec: JsonObject = {};
  if (form.schedule) spec.schedule = form.schedule;
  if (retention !== undefined) spec.retention = retention;
  spec[form.type] = [entry, ...existing.slice(1)];
  for (const [key, value] of Object.entries(base)) if (!(key in spec) && !NOT_A_TYPE.includes(key)) spec[key] = value;
  return { spec, errors };
}

/** The ScrapeConfig spec of the form, when it is valid. Whatever the form does
 * not show (other settings, other fields of the entry, further entries) is kept from `base`. */
export function buildScraperSpec(form: ScraperForm): BuiltSpec {
  const built = assembleSpec(form);
  return Object.keys(built.errors).length ? { errors: built.errors } : built;
}
