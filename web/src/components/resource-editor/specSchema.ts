import { parse } from 'yaml';
import type { YamlResult } from '../../lib/yamlText';

/** The part of a CRD's OpenAPI v3 schema the console checks a spec against
 * (what the crds crate generates). */
export interface SpecSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  format?: string;
  nullable?: boolean;
  properties?: Record<string, SpecSchema>;
  additionalProperties?: SpecSchema | boolean;
  items?: SpecSchema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

const TYPE_WORDS: Record<NonNullable<SpecSchema['type']>, string> = {
  object: 'a mapping',
  array: 'a list',
  string: 'a string',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
};

function hasType(value: unknown, type: NonNullable<SpecSchema['type']>): boolean {
  switch (type) {
    case 'object':
      return typeof value === 'object' && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'integer':
      return Number.isInteger(value);
    default:
      return typeof value === type;
  }
}

function child(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/** What in `value` the schema refuses, one line each, named by its path
 * (`components[2].name: must be a string`). A null is a missing value, as the
 * Kubernetes API server reads it; a field the schema does not know is refused
 * unless the schema keeps unknown fields (the engine would never read it). */
export function schemaProblems(value: unknown, schema: SpecSchema, path = ''): string[] {
  if (value === null || value === undefined) return [];
  const where = path || 'spec';
  if (schema.type && !hasType(value, schema.type)) return [`${where}: must be ${TYPE_WORDS[schema.type]}`];
  if (Array.isArray(value))
    return schema.items ? value.flatMap((v, i) => schemaProblems(v, schema.items as SpecSchema, `${path}[${i}]`)) : [];
  if (typeof value !== 'object') return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([key, v]) => {
    const known = schema.properties?.[key];
    if (known) return schemaProblems(v, known, child(path, key));
    if (typeof schema.additionalProperties === 'object') return schemaProblems(v, schema.additionalProperties, child(path, key));
    if (schema.additionalProperties === true || schema['x-kubernetes-preserve-unknown-fields'] || !schema.properties) return [];
    return [`${child(path, key)}: unknown field`];
  });
}

/** A typed spec's problems: its YAML error, else what the schema refuses. */
export function specProblems(parsed: YamlResult, schema: SpecSchema): string[] {
  return parsed.error !== undefined ? [parsed.error] : schemaProblems(parsed.value, schema);
}

interface Crd {
  spec?: { versions?: { schema?: { openAPIV3Schema?: { properties?: { spec?: SpecSchema } } } }[] };
}

/** The `spec` schema of a CRD's YAML (a chart's `crds/*.yaml`, generated from the crds crate). */
export function crdSpecSchema(crdYaml: string): SpecSchema {
  return (parse(crdYaml) as Crd).spec?.versions?.[0]?.schema?.openAPIV3Schema?.properties?.spec ?? {};
}
