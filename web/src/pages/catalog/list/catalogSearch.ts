/** The catalog's search box: the resource search grammar (decision in
 * docs/decisions.md, catalog list). Space-separated terms; `key=value[,value2]`
 * filters a field by any of its values, anything else is free text the name
 * must contain. Keys: name, type, health, status, agent; `tag.<key>` and
 * `label.<key>` (also `tags.`/`labels.`) a tag or label; any other key is a
 * tag key (`namespace=prod`, `cluster=east`). A value may be double-quoted to
 * hold spaces. A term with no value yet (`type=`) is ignored while typing. */

export const SEARCH_HINT = 'Filter the list using queries e.g: name=grafana type=Kubernetes::Deployment or health=healthy,unhealthy';

export interface SearchTerms {
  /** Name patterns, `*` a wildcard: each entry's alternatives, every entry must match. */
  names: string[][];
  types?: string[];
  health?: string[];
  status?: string[];
  /** Agent names or ids, as typed. */
  agents?: string[];
  tags: Record<string, string[]>;
  labels: Record<string, string[]>;
  /** Free text the name contains. */
  text: string;
}

const FIELDS = ['name', 'type', 'health', 'status', 'agent'] as const;
type Field = (typeof FIELDS)[number];

/** Splits on spaces outside double quotes; the quotes are dropped. */
function tokens(text: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  let started = false;
  for (const c of text) {
    if (c === '"') {
      quoted = !quoted;
      started = true;
    } else if (!quoted && /\s/.test(c)) {
      if (started) out.push(current);
      current = '';
      started = false;
    } else {
      current += c;
      started = true;
    }
  }
  if (started) out.push(current);
  return out;
}

/** Values of one term: comma-separated, blanks dropped, duplicates once. */
function values(text: string): string[] {
  return [
    ...new Set(
      text
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean),
    ),
  ];
}

/** Keys a plain object must not take from user text. */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

function add(map: Record<string, string[]>, key: string, vals: string[]) {
  if (!key || FORBIDDEN.has(key)) return;
  const current = map[key];
  // The same key twice narrows: a value must be in both lists.
  map[key] = current ? current.filter((v) => vals.includes(v)) : vals;
}

/** Two lists of alternatives for one field: both must hold. */
export function intersect(a: string[] | undefined, b: string[] | undefined): string[] | undefined {
  if (!a) return b;
  if (!b) return a;
  return a.filter((v) => b.includes(v));
}

export function parseSearch(text: string): SearchTerms {
  const terms: SearchTerms = { names: [], tags: {}, labels: {}, text: '' };
  const free: string[] = [];
  for (const token of tokens(text)) {
    const at = token.indexOf('=');
    if (at <= 0) {
      free.push(token);
      continue;
    }
    const rawKey = token.slice(0, at).trim();
    const vals = values(token.slice(at + 1));
    if (vals.length === 0) continue;
    const key = rawKey.toLowerCase();
    const dot = rawKey.indexOf('.');
    const prefix = dot > 0 ? key.slice(0, dot) : '';
    if (prefix === 'tag' || prefix === 'tags') add(terms.tags, rawKey.slice(dot + 1), vals);
    else if (prefix === 'label' || prefix === 'labels') add(terms.labels, rawKey.slice(dot + 1), vals);
    else if ((FIELDS as readonly string[]).includes(key)) {
      const field = key as Field;
      if (field === 'name') terms.names.push(vals);
      else {
        const name = field === 'type' ? 'types' : field === 'agent' ? 'agents' : field;
        const normal = field === 'health' ? vals.map((v) => v.toLowerCase()) : vals;
        terms[name] = intersect(terms[name], normal);
      }
    } else add(terms.tags, rawKey, vals);
  }
  terms.text = free.join(' ');
  return terms;
}
