import createClient from 'openapi-fetch';
import { ApiError } from './errors';
import { apiFetch } from './http';
import type { components, paths } from './schema';

/** The typed client of the console API, generated from its OpenAPI document. */
export const api = createClient<paths>({ baseUrl: '', fetch: apiFetch });

export type Schemas = components['schemas'];

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a successful call; an ApiError otherwise. */
export async function unwrap<T>(call: Promise<FetchResult<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw new ApiError(response.status, error ?? null);
  return data as T;
}
