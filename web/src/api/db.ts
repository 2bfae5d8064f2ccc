import { ApiError } from './errors';
import { apiFetch, readJson } from './http';
import type { EmbedColumns, Embeds, Insert, Inserts, RelationName, Row, Update, Updates } from './relations.gen';

/** Calls of the PostgREST-style data API at /api/db/{relation}, typed by the
 * registry the server serves (relations.gen.ts): the relation names the row,
 * `columns` narrow it, `embed` adds the rows of its registered embeds, and
 * filters are PostgREST operators on its columns, e.g.
 * `{ id: 'eq.X', deleted_at: 'is.null' }`. */
export type Column<R extends RelationName> = keyof Row<R> & string;

export type Filters<R extends RelationName> = { [C in Column<R>]?: string } & {
  /** PostgREST's logical groups, e.g. `(created_at.gte.X,created_at.lte.Y)`. */
  and?: string;
  or?: string;
};

type EmbedsOf<R extends RelationName> = R extends keyof Embeds ? Embeds[R] : Record<never, never>;
type EmbedName<R extends RelationName> = keyof EmbedsOf<R> & string;
type Target<R extends RelationName, N extends EmbedName<R>> = EmbedsOf<R>[N] extends { one: infer T extends RelationName }
  ? T
  : EmbedsOf<R>[N] extends { many: infer T extends RelationName }
    ? T
    : never;
/** The columns of a relation that may be read while it is embedded. */
type EmbedColumn<T extends RelationName> = T extends keyof EmbedColumns ? EmbedColumns[T] & Column<T> : Column<T>;

/** Embeds by name, each with the columns to read of it. */
export type EmbedSpec<R extends RelationName> = { [N in EmbedName<R>]?: readonly EmbedColumn<Target<R, N>>[] };

/** A to-one embed is null when the row points at nothing or at a row the
 * caller may not read. */
type Embedded<R extends RelationName, N extends EmbedName<R>, K> = EmbedsOf<R>[N] extends { one: RelationName }
  ? Pick<Row<Target<R, N>>, K & Column<Target<R, N>>> | null
  : Pick<Row<Target<R, N>>, K & Column<Target<R, N>>>[];

/** A row as a query reads it: its columns, with embeds in place of the
 * columns of the same name. */
export type Selected<R extends RelationName, C extends Column<R> = Column<R>, E extends EmbedSpec<R> = Record<never, never>> = Omit<
  Pick<Row<R>, C>,
  keyof E
> & { [N in keyof E & EmbedName<R>]: Embedded<R, N, E[N] extends readonly (infer K)[] | undefined ? K : never> };

export type Query<R extends RelationName, C extends Column<R> = Column<R>, E extends EmbedSpec<R> = Record<never, never>> = Filters<R> & {
  /** The columns to read; all of them when left out. */
  columns?: readonly C[];
  embed?: E;
  order?: string;
  limit?: number;
  offset?: number;
};

/** The request target of a query (exported for its test). */
export function url(relation: RelationName, query: Record<string, unknown> = {}): string {
  const { columns, embed, ...rest } = query as { columns?: readonly string[]; embed?: Record<string, readonly string[] | undefined> };
  const params = new URLSearchParams();
  const embeds = Object.entries(embed ?? {}).flatMap(([name, cols]) => (cols ? [`${name}(${cols.join(',')})`] : []));
  const select = [...(columns ?? (embeds.length > 0 ? ['*'] : [])), ...embeds];
  if (select.length > 0) params.set('select', select.join(','));
  for (const [key, value] of Object.entries(rest)) {
    if (value !== undefined) params.set(key, String(value));
  }
  const qs = params.toString();
  return `/api/db/${relation}${qs ? `?${qs}` : ''}`;
}

async function call(method: string, target: string, body?: unknown, prefer?: string, signal?: AbortSignal): Promise<Response> {
  const headers = new Headers({ Accept: 'application/json' });
  if (body !== undefined) headers.set('Content-Type', 'application/json');
  if (prefer) headers.set('Prefer', prefer);
  const response = await apiFetch(
    new Request(target, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal }),
  );
  if (!response.ok) throw new ApiError(response.status, await readJson(response));
  return response;
}

export async function dbSelect<R extends RelationName, C extends Column<R> = Column<R>, E extends EmbedSpec<R> = Record<never, never>>(
  relation: R,
  query: Query<R, C, E> = {},
  signal?: AbortSignal,
): Promise<Selected<R, C, E>[]> {
  const response = await call('GET', url(relation, query), undefined, undefined, signal);
  return ((await readJson(response)) ?? []) as Selected<R, C, E>[];
}

/** Rows and the total from Content-Range (Prefer: count=exact). */
export async function dbCount<R extends RelationName, C extends Column<R> = Column<R>, E extends EmbedSpec<R> = Record<never, never>>(
  relation: R,
  query: Query<R, C, E> = {},
  signal?: AbortSignal,
): Promise<{ rows: Selected<R, C, E>[]; total: number }> {
  const response = await call('GET', url(relation, query), undefined, 'count=exact', signal);
  const rows = ((await readJson(response)) ?? []) as Selected<R, C, E>[];
  const total = Number(response.headers.get('Content-Range')?.split('/')[1]);
  return { rows, total: Number.isFinite(total) ? total : rows.length };
}

export async function dbInsert<R extends keyof Inserts>(relation: R, body: Insert<R> | Insert<R>[]): Promise<Row<R>[]> {
  const response = await call('POST', url(relation), body, 'return=representation');
  return ((await readJson(response)) ?? []) as Row<R>[];
}

export async function dbUpdate<R extends keyof Updates>(relation: R, filter: Filters<R>, body: Update<R>): Promise<Row<R>[]> {
  const response = await call('PATCH', url(relation, filter), body, 'return=representation');
  return ((await readJson(response)) ?? []) as Row<R>[];
}

export async function dbDelete<R extends keyof Inserts>(relation: R, filter: Filters<R>): Promise<void> {
  await call('DELETE', url(relation, filter));
}

/** The relations whose rows are soft-deleted (a writable `deleted_at`). */
export type SoftDeletable = { [R in keyof Updates]: 'deleted_at' extends keyof Update<R> ? R : never }[keyof Updates];

/** Soft delete: the row stays, marked deleted now. */
export async function dbSoftDelete(relation: SoftDeletable, id: string): Promise<void> {
  await call('PATCH', url(relation, { id: `eq.${id}` }), { deleted_at: new Date().toISOString() });
}
