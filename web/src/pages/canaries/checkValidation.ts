/** Validation of the check editor (decision 12.7) and the schema check of its spec. */
// The chart's CRD, generated from the crds crate: the one copy of the schema.
import crdYaml from '../../../../charts/quarterdeck/crds/canaries.quarterdeck.dev.yaml?raw';
import { crdSpecSchema, schemaProblems } from '../../components/resource-editor/specSchema';
import type { JsonObject } from '../../lib/yamlText';
import { formFields, type Field, type Input } from './checkFields';
import { checkItem, connectionKind, readField, type CanaryForm } from './checkSpec';
import type { CheckType } from './checkTypes';
import { MESSAGES as RULES } from '../../api/rules.gen';

export const MESSAGES = {
  required: RULES.form.fieldRequired,
  number: RULES.form.fieldNotANumber,
  min: (min: number) => `This field must be at least ${min}`,
} as const;

/** The key of the top Name field among the item field paths. */
export const NAME_KEY = 'top.name';

/** Problems by field: NAME_KEY, or a path inside the edited check. */
export type Errors = Readonly<Record<string, string>>;

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && !value.trim());
}

export function inputError(item: JsonObject, field: Input): string | undefined {
  if (field.when && !field.when(item)) return undefined;
  const value = readField(item, field);
  if (isBlank(value)) return field.required ? MESSAGES.required : undefined;
  if (field.kind !== 'number') return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) return MESSAGES.number;
  if (field.min !== undefined && value < field.min) return MESSAGES.min(field.min);
  return undefined;
}

/** The inputs of a field list that are in play for this item: groups opened
 * up, and only the chosen folder connection's. */
export function activeInputs(fields: readonly Field[], item: JsonObject): Input[] {
  return fields.flatMap((field): Input[] => {
    switch (field.kind) {
      case 'group':
        return [...field.fields];
      case 'connection':
        return [...(field.options.find((o) => o.id === connectionKind(item))?.fields ?? [])];
      case 'text':
      case 'multiline':
      case 'number':
      case 'list':
      case 'env':
      case 'secret':
      case 'checkbox':
        return [field];
      default:
        return [];
    }
  });
}

export function validateCanary(form: CanaryForm, type: CheckType): Errors {
  const errors: Record<string, string> = {};
  if (!form.name.trim()) errors[NAME_KEY] = MESSAGES.required;
  const key = type.form ? type.keys[0] : undefined;
  if (key) {
    const item = checkItem(form.spec, key);
    for (const field of activeInputs(formFields(key), item)) {
      const error = inputError(item, field);
      if (error) errors[field.path] = error;
    }
  }
  return errors;
}

const CANARY_SPEC_SCHEMA = crdSpecSchema(crdYaml);

/** What the Canary CRD's schema refuses in the spec the Code tab and the
 * Specs editor show, one line each named by its path
 * (`http[0].thresholdMillis: must be a whole number`, `dns[0].qeury: unknown field`). */
export function specProblems(form: CanaryForm): string[] {
  return schemaProblems(form.spec, CANARY_SPEC_SCHEMA);
}
