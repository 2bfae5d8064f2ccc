import { Document, isMap, parseDocument } from 'yaml';
import type { Option } from '../Selects';
import type { JsonObject } from '../../lib/yamlText';

/** The schedule dropdown's choices, in the spec's order (part 2, 2.5). */
export const SCHEDULES = ['@every 30s', '@every 1m', '@every 5m', '@every 30m', '@hourly', '@every 6h', '@daily', '@weekly'] as const;

/** 'None' (the entity's default, described), the schedules, then the current
 * value when it is another one, so that opening the editor never loses it. */
export function scheduleOptions(current: string | undefined, defaultDescription: string): Option[] {
  const options: Option[] = [
    { value: '', label: 'None', description: defaultDescription },
    ...SCHEDULES.map((s) => ({ value: s, label: s })),
  ];
  if (current && !options.some((o) => o.value === current)) options.push({ value: current, label: current });
  return options;
}

export type LabelsResult = { labels: Record<string, string>; problem?: undefined } | { labels?: undefined; problem: string };

/** Labels typed as JSON: an object of text values; empty text is none. */
export function parseLabels(text: string): LabelsResult {
  if (!text.trim()) return { labels: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: 'Not valid JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { problem: 'Not a JSON object' };
  const notText = Object.entries(value).find(([, v]) => typeof v !== 'string');
  if (notText) return { problem: `The value of ${notText[0]} is not a string` };
  return { labels: value as Record<string, string> };
}

/** Labels as the JSON the field shows. */
export function labelsText(labels: unknown): string {
  return JSON.stringify(labels && typeof labels === 'object' ? labels : {}, null, 2);
}

/** A top-level text field of a spec (its `schedule` or `icon`). */
export function specText(spec: JsonObject | undefined, key: string): string | undefined {
  const value = spec?.[key];
  return typeof value === 'string' && value ? value : undefined;
}

/** The spec's YAML with a top-level key set (or removed when `value` is
 * undefined), keeping the rest of the text (order, comments) as typed;
 * undefined while the text is not a YAML mapping. */
export function withSpecKey(text: string, key: string, value: string | undefined): string | undefined {
  const doc = parseDocument(text);
  if (doc.errors.length) return undefined;
  if (doc.contents === null) return value === undefined ? text : new Document({ [key]: value }).toString();
  if (!isMap(doc.contents)) return undefined;
  if (value === undefined) doc.delete(key);
  else doc.set(key, value);
  return doc.toString();
}
