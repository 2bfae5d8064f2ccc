/** What the catalog list asks the server for: the filter controls and the
 * search box merged into one filter (a field set in both must satisfy both),
 * then written as a data API query of `configs` and a summary request. */
import type { Query } from '../../../api/db';
import { NULL_AGENT_ID } from '../../../lib/healthFormat';
import type { CatalogParams, SortColumn } from './catalogParams';
import { intersect, parseSearch } from './catalogSearch';

export interface CatalogFilter {
  /** Unset: any; empty: none can match. */
  types?: string[];
  health?: string[];
  status?: string[];
  agents?: string[];
  /** Name patterns (`*` a wildcard): each entry's alternatives, all entries must hold. */
  names: string[][];
  /** Text the name contains. */
  text: string;
  tags: Record<string, string[]>;
  labels: Record<string, string[]>;
  includeDeleted: boolean;
}

export interface Agent {
  id: string;
  name: string;
}

/** `key=value` entries by key; several values of one key are alternatives. */
function byKey(entries: string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const entry of entries) {
    const at = entry.indexOf('=');
    const key = entry.slice(0, at);
    if (at <= 0 || key === '__proto__' || key === 'constructor') continue;
    (out[key] ??= []).push(entry.slice(at + 1));
  }
  return out;
}

function mergeKeys(a: Record<string, string[]>, b: Record<string, string[]>): Record<string, string[]> {
  const out = { ...a };
  for (const [key, values] of Object.entries(b)) out[key] = intersect(out[key], values) ?? values;
  return out;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Agent ids of names or ids as typed; `local` is this instance. */
export function agentIds(values: string[], agents: readonly Agent[]): string[] {
  return values.flatMap((value) => {
    if (UUID.test(value)) return [value.toLowerCase()];
    if (value.toLowerCase() === 'local') return [NULL_AGENT_ID];
    return agents.filter((a) => a.name.toLowerCase() === value.toLowerCase()).map((a) => a.id);
  });
}

export function catalogFilter(params: CatalogParams, includeDeleted: boolean, agents: readonly Agent[]): CatalogFilter {
  const search = parseSearch(params.q);
  const list = (values: string[]) => (values.length > 0 ? values : undefined);
  return {
    types: intersect(list(params.types), search.types),
    health: intersect(list(params.health), search.health),
    status: intersect(list(params.status), search.status),
    agents: intersect(params.agent ? [params.agent] : undefined, search.agents && agentIds(search.agents, agents)),
    names: search.names,
    text: search.text,
    tags: mergeKeys(byKey(params.tags), search.tags),
    labels: mergeKeys(byKey(params.labels), search.labels),
    includeDeleted,
  };
}

/** A value inside a logic tree or an `in` list, quoted with `\` escapes. */
const quote = (value: string) => `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
const inList = (values: string[]) => `in.(${values.map(quote).join(',')})`;
/** An ILIKE pattern: the user's `*` is the wildcard, `%`, `_` and `\` are literal. */
const pattern = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

export const COLUMNS = [
  'id',
  'name',
  'type',
  'health',
  'status',
  'labels',
  'tags',
  'agent_id',
  'cost_per_minute',
  'cost_total_1d',
  'cost_total_7d',
  'cost_total_30d',
  'created_at',
  'updated_at',
  'deleted_at',
] as const;
export const EMBEDS = { agent: ['name'] } as const;

export type ConfigsQuery = Query<'configs', (typeof COLUMNS)[number], typeof EMBEDS>;

export interface Page {
  sortBy: SortColumn;
  sortDesc: boolean;
  pageIndex: number;
  pageSize: number;
}

/** The data API query of one page of `configs`. */
export function configsQuery(filter: CatalogFilter, page: Page): ConfigsQuery {
  const dir = `${page.sortDesc ? 'desc' : 'asc'}.nullslast`;
  const query: ConfigsQuery = {
    columns: COLUMNS,
    embed: EMBEDS,
    order: page.sortBy === 'name' ? `name.${dir},id.asc` : `${page.sortBy}.${dir},name.asc,id.asc`,
    limit: page.pageSize,
    offset: page.pageIndex * page.pageSize,
  };
  // Conditions beyond one per column, ANDed.
  const and: string[] = [];
  if (filter.types) query.type = inList(filter.types);
  if (filter.health) {
    if (filter.health.includes('unknown')) and.push(`or(health.is.null,health.${inList(filter.health)})`);
    else query.health = inList(filter.health);
  }
  if (filter.status) query.status = inList(filter.status);
  if (filter.agents) query.agent_id = inList(filter.agents);
  for (const alternatives of filter.names) {
    and.push(`or(${alternatives.map((a) => `name.ilike.${quote(pattern(a))}`).join(',')})`);
  }
  if (filter.text) and.push(`name.ilike.${quote(`*${pattern(filter.text)}*`)}`);
  for (const [column, entries] of [
    ['tags', filter.tags],
    ['labels', filter.labels],
  ] as const) {
    // One containment for every single-valued key (the GIN index answers it);
    // a key with alternatives is an OR of containments.
    const exact: Record<string, string> = {};
    for (const [key, values] of Object.entries(entries)) {
      if (values.length === 1) exact[key] = values[0] as string;
      else if (values.length === 0) query.id = 'in.()';
      else and.push(`or(${values.map((v) => `${column}.cs.${quote(JSON.stringify({ [key]: v }))}`).join(',')})`);
    }
    if (Object.keys(exact).length > 0) query[column] = `cs.${JSON.stringify(exact)}`;
  }
  if (!filter.includeDeleted) query.deleted_at = 'is.null';
  if (and.length > 0) query.and = `(${and.join(',')})`;
  return query;
}

export interface SummaryBody {
  health?: string;
  status?: string;
  tags?: string;
  include_deleted_configs: boolean;
}

/** The summary's filters: what it can take of the filter, every type (the
 * counts are the type list's). Name, agent, label and multi-valued tag
 * filters are not among them. */
export function summaryBody(filter: CatalogFilter): SummaryBody {
  const body: SummaryBody = { include_deleted_configs: filter.includeDeleted };
  const safe = (v: string) => !/[,=]/.test(v);
  if (filter.health) body.health = filter.health.join(',');
  if (filter.status?.every(safe)) body.status = filter.status.join(',');
  const tags = Object.entries(filter.tags).filter(([k, values]) => values.length === 1 && safe(k) && safe(values[0] ?? ''));
  if (tags.length > 0) body.tags = tags.map(([k, [v]]) => `${k}=${v}`).join(',');
  return body;
}
