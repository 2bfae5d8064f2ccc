import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, type Schemas } from '../../api/client';
import { ApiError, errorMessage } from '../../api/errors';
import { FLOW_MESSAGES, safeReturnTo } from '../../lib/loginFlow';

export type SelfServiceKind = 'registration' | 'recovery' | 'verification';
type Flow = Schemas['SelfServiceFlow'];
type FlowError = Schemas['FlowError'];
type UiText = Schemas['UiText'];
type Fields = Record<string, string>;
type Answer = { data?: unknown; error?: unknown; response: Response };

/** The three kinds' calls: the same shapes on their own paths. */
const CALLS: Record<
  SelfServiceKind,
  {
    create(returnTo?: string): Promise<Answer>;
    fetch(id: string): Promise<Answer>;
    submit(flow: string, body: Fields & { csrf_token: string }): Promise<Answer>;
  }
> = {
  registration: {
    create: (return_to) => api.GET('/api/auth/registration/browser', { params: { query: { return_to } } }),
    fetch: (id) => api.GET('/api/auth/registration/flows', { params: { query: { id } } }),
    submit: (flow, body) => api.POST('/api/auth/registration', { params: { query: { flow } }, body }),
  },
  recovery: {
    create: (return_to) => api.GET('/api/auth/recovery/browser', { params: { query: { return_to } } }),
    fetch: (id) => api.GET('/api/auth/recovery/flows', { params: { query: { id } } }),
    submit: (flow, body) => api.POST('/api/auth/recovery', { params: { query: { flow } }, body }),
  },
  verification: {
    create: (return_to) => api.GET('/api/auth/verification/browser', { params: { query: { return_to } } }),
    fetch: (id) => api.GET('/api/auth/verification/flows', { params: { query: { id } } }),
    submit: (flow, body) => api.POST('/api/auth/verification', { params: { query: { flow } }, body }),
  },
};

/** What the page shows: a flow; that the kind is off (with why); or where to go. */
type Loaded = { flow: Flow; notice?: UiText } | { disabled: string } | { redirect: string };

function notice(text: string): UiText {
  return { id: 0, type: 'error', text };
}

function flowError(body: unknown): FlowError | undefined {
  const value = body as Partial<FlowError> | null;
  return value && typeof value.error === 'object' ? (value as FlowError) : undefined;
}

async function fetchFlow(kind: SelfServiceKind, id: string): Promise<Flow | undefined> {
  const { data, error, response } = await CALLS[kind].fetch(id);
  if (response.ok) return data as Flow;
  const next = flowError(error)?.use_flow_id;
  if (response.status === 410 && next) return fetchFlow(kind, next);
  if (response.status === 404 || response.status === 410) return undefined;
  throw new ApiError(response.status, error);
}

async function createFlow(kind: SelfServiceKind, returnTo: string | undefined): Promise<Loaded> {
  const { data, error, response } = await CALLS[kind].create(returnTo);
  if (response.ok) return { flow: data as Flow };
  const failure = flowError(error)?.error;
  if (failure?.id === 'self_service_flow_disabled') return { disabled: failure.message };
  // Spec part 1, section 8: a verification flow that cannot be created (400) goes home.
  if (failure?.id === 'session_already_available' || (kind === 'verification' && response.status === 400)) return { redirect: '/' };
  if (failure?.id === 'self_service_flow_return_to_forbidden') {
    const fresh = await createFlow(kind, undefined);
    return 'flow' in fresh ? { flow: fresh.flow, notice: notice(FLOW_MESSAGES.returnToForbidden) } : fresh;
  }
  throw new ApiError(response.status, error);
}

async function loadFlow(kind: SelfServiceKind, params: URLSearchParams): Promise<Loaded> {
  const id = params.get('flow');
  if (id) {
    const existing = await fetchFlow(kind, id);
    if (existing) return { flow: existing, notice: existing.id !== id ? notice(FLOW_MESSAGES.expired) : undefined };
  }
  return createFlow(kind, params.get('return_to') ?? undefined);
}

type Submitted = { continueTo: string } | Loaded;

async function submitFlow(kind: SelfServiceKind, flow: Flow, method: string, fields: Fields, params: URLSearchParams): Promise<Submitted> {
  const csrf = flow.ui.nodes.find((n) => n.attributes.name === 'csrf_token')?.attributes.value;
  const { data, error, response } = await CALLS[kind].submit(flow.id, {
    ...fields,
    method,
    csrf_token: typeof csrf === 'string' ? csrf : '',
  });
  if (response.ok) {
    const next = data as Flow;
    return next.continue_to ? { continueTo: safeReturnTo(next.continue_to) } : { flow: next };
  }
  if (response.status === 400) return { flow: error as Flow };
  const failure = flowError(error);
  if (failure?.error.id === 'self_service_flow_disabled') return { disabled: failure.error.message };
  if (response.status === 410 && failure?.use_flow_id) {
    const next = await fetchFlow(kind, failure.use_flow_id);
    if (next) return { flow: next, notice: notice(FLOW_MESSAGES.expired) };
  }
  if (response.status === 410 || response.status === 403) {
    const fresh = await createFlow(kind, params.get('return_to') ?? undefined);
    if ('flow' in fresh) return { flow: fresh.flow, notice: notice(response.status === 403 ? FLOW_MESSAGES.csrf : FLOW_MESSAGES.expired) };
    return fresh;
  }
  throw new ApiError(response.status, error);
}

/** A registration, recovery or verification page's data: the flow (or why
 * the kind is off), its messages, and submitting it. A finished flow that
 * signed the person in sends the browser on to `continue_to`. */
export function useSelfServiceFlow(kind: SelfServiceKind, params: URLSearchParams, enabled = true) {
  const loaded = useQuery({
    queryKey: ['self-service-flow', kind, params.get('flow'), params.get('return_to')],
    queryFn: () => loadFlow(kind, params),
    enabled,
    retry: false,
    staleTime: Infinity,
    gcTime: 0,
  });
  const [current, setCurrent] = useState<Loaded>();
  const [failure, setFailure] = useState<string>();
  const submit = useMutation({
    mutationFn: ({ flow, method, fields }: { flow: Flow; method: string; fields: Fields }) =>
      submitFlow(kind, flow, method, fields, params),
    onMutate: () => setFailure(undefined),
    onSuccess: (result) => {
      if ('continueTo' in result) window.location.assign(result.continueTo);
      else setCurrent(result);
    },
    onError: (error) => setFailure(errorMessage(error)),
  });

  const state = current ?? loaded.data;
  const flow = state && 'flow' in state ? state.flow : undefined;
  const messages = [...(state && 'notice' in state && state.notice ? [state.notice] : []), ...(flow?.ui.messages ?? [])];
  if (failure) messages.push(notice(failure));
  return {
    flow,
    messages,
    disabled: state && 'disabled' in state ? state.disabled : undefined,
    redirect: state && 'redirect' in state ? state.redirect : undefined,
    loadError: loaded.error,
    isLoading: loaded.isLoading,
    submit: (method: string, fields: Fields) => flow && submit.mutate({ flow, method, fields }),
    // After success the page is being left; keep the button busy.
    isSubmitting: submit.isPending || (submit.data !== undefined && 'continueTo' in submit.data),
  };
}
