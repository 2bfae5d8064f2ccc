import { parse, stringify } from 'yaml';

export type JsonObject = Record<string, unknown>;

export type YamlResult = { value: JsonObject; error?: undefined } | { value?: undefined; error: string };

/** A YAML mapping typed into a field: empty text is `{}`; anything else must
 * parse and be a mapping. The error is one line, with the line and column. */
export function parseYamlObject(text: string): YamlResult {
  if (!text.trim()) return { value: {} };
  let parsed: unknown;
  try {
    parsed = parse(text);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return { error: message.split('\n')[0]?.replace(/:$/, '') ?? message };
  }
  if (parsed === null || parsed === undefined) return { value: {} };
  if (typeof parsed !== 'object' || Array.isArray(parsed)) return { error: 'Must be a YAML mapping (key: value pairs)' };
  return { value: parsed as JsonObject };
}

/** YAML that kubectl, Helm and Flux (YAML 1.1) read as this console does
 * (1.2): strings such as `on`, `yes` or `0777` come out quoted. */
export function toYaml(value: unknown): string {
  return stringify(value, { version: '1.1' });
}

/** An object as YAML for an editor; empty text for an empty or missing one. */
export function toYamlText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0) return '';
  return toYaml(value);
}
