import { ApiError } from '../../api/errors';
import { apiFetch, readJson } from '../../api/http';
import type { Schemas } from '../../api/client';
import type { PlaybookParameter } from './parameters';

/** What a run is about: at most one of a config item, a component or a check. */
export interface RunTarget {
  config_id?: string;
  component_id?: string;
  check_id?: string;
}

export interface RunRequest extends RunTarget {
  id: string;
  params: Record<string, unknown>;
}

export interface RunResponse {
  run_id: string;
  starts_at: string;
}

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const headers = new Headers({ Accept: 'application/json' });
  if (body !== undefined) headers.set('Content-Type', 'application/json');
  const response = await apiFetch(
    new Request(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal }),
  );
  const json = await readJson(response);
  if (!response.ok) throw new ApiError(response.status, json);
  return json as T;
}

export type RunnablePlaybook = Schemas['RunnablePlaybook'];

/** The playbooks that can run on the target (by their selectors and filters), by title. */
export function fetchRunnable(target: RunTarget, signal?: AbortSignal): Promise<RunnablePlaybook[]> {
  const query = new URLSearchParams(Object.entries(target).filter((e): e is [string, string] => typeof e[1] === 'string'));
  return call<RunnablePlaybook[]>('GET', `/api/playbook/list?${query.toString()}`, undefined, signal);
}

/** The playbook's parameters with their defaults templated for the target. */
export async function fetchParams(id: string, target: RunTarget, signal?: AbortSignal): Promise<PlaybookParameter[]> {
  const answer = await call<{ params?: PlaybookParameter[] | null }>('POST', `/api/playbook/${id}/params`, target, signal);
  return answer.params ?? [];
}

export const runPlaybook = (request: RunRequest) => call<RunResponse>('POST', '/api/playbook/run', request);

export const approveRun = (runId: string) => call<{ message: string }>('POST', `/api/playbook/run/approve/${runId}`);

export const cancelRun = (runId: string) => call<{ message: string }>('POST', `/api/playbook/run/cancel/${runId}`);
