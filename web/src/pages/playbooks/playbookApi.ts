import { api, unwrap, type Schemas } from '../../api/client';
import type { PlaybookParameter } from './parameters';

/** What a run is about: at most one of a config item, a component or a check. */
export type RunTarget = Schemas['ParamsRequest'];
export type RunnablePlaybook = Schemas['RunnablePlaybook'];

/** The playbooks that can run on the target (by their selectors and filters), by title. */
export const fetchRunnable = (target: RunTarget, signal?: AbortSignal) =>
  unwrap(api.GET('/api/playbook/list', { params: { query: target as Record<string, string> }, signal }));

/** The playbook's parameters with their defaults templated for the target. */
export const fetchParams = (id: string, target: RunTarget, signal?: AbortSignal) =>
  unwrap(api.POST('/api/playbook/{id}/params', { params: { path: { id } }, body: target, signal })).then(
    (answer) => answer.params as unknown as PlaybookParameter[],
  );

export const runPlaybook = (request: RunTarget & { id: string; params: Record<string, unknown> }) =>
  unwrap(api.POST('/api/playbook/run', { body: { ...request, params: request.params as Record<string, never> } }));

export const approveRun = (id: string) => unwrap(api.POST('/api/playbook/run/approve/{id}', { params: { path: { id } } }));

export const cancelRun = (id: string) => unwrap(api.POST('/api/playbook/run/cancel/{id}', { params: { path: { id } } }));
