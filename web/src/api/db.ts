import { ApiError } from './errors';
import { apiFetch, readJson } from './http';

/** Calls of the PostgREST-style data API at /api/db/{relation}. Filters are
 * PostgREST query parameters, e.g. `{ id: 'eq.X', deleted_at: 'is.null' }`. */
export type Query = Record<string, string | number | undefined>;

function url(relation: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
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

export async function dbSelect<T>(relation: string, query: Query = {}, signal?: AbortSignal): Promise<T[]> {
  const response = await call('GET', url(relation, query), undefined, undefined, signal);
  return ((await readJson(response)) ?? []) as T[];
}

/** Rows and the total from Content-Range (Prefer: count=exact). */
export async function dbCount<T>(relation: string, query: Query = {}, signal?: AbortSignal): Promise<{ rows: T[]; total: number }> {
  const response = await call('GET', url(relation, query), undefined, 'count=exact', signal);
  const rows = ((await readJson(response)) ?? []) as T[];
  const total = Number(response.headers.get('Content-Range')?.split('/')[1]);
  return { rows, total: Number.isFinite(total) ? total : rows.length };
}

export async function dbInsert<T>(relation: string, body: object | object[]): Promise<T[]> {
  const response = await call('POST', url(relation), body, 'return=representation');
  return ((await readJson(response)) ?? []) as T[];
}

export async function dbUpdate<T>(relation: string, filter: Query, body: object): Promise<T[]> {
  const response = await call('PATCH', url(relation, filter), body, 'return=representation');
  return ((await readJson(response)) ?? []) as T[];
}

export async function dbDelete(relation: string, filter: Query): Promise<void> {
  await call('DELETE', url(relation, filter));
}

/** Soft delete: the row stays, marked deleted now. */
export async function dbSoftDelete(relation: string, id: string): Promise<void> {
  await call('PATCH', url(relation, { id: `eq.${id}` }), { deleted_at: new Date().toISOString() });
}
