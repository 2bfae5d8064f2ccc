import { toYaml } from '../../../lib/yamlText';

export const FORMATS = ['YAML', 'JSON'] as const;
export type Format = (typeof FORMATS)[number];

/** Above this many characters of JSON, YAML is written off the main thread:
 * a megabyte takes the YAML writer most of a second. */
export const LARGE_CONFIG = 100_000;

/** The format in the URL (`?format=json`); YAML when unset. */
export function formatOf(param: string | null): Format {
  return param?.toLowerCase() === 'json' ? 'JSON' : 'YAML';
}

export function toJsonText(config: unknown): string {
  return config === undefined ? '' : JSON.stringify(config, null, 2);
}

export function toYamlText(config: unknown): string {
  return toYaml(config);
}
