import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap, type Schemas } from '../../api/client';
import { ApiError, errorMessage } from '../../api/errors';
import { FLOW_MESSAGES, flowQuery, safeReturnTo } from '../../lib/loginFlow';
import { getCredential, promptProblem } from '../../lib/webauthn';

type LoginFlow = Schemas['LoginFlow'];
type FlowError = Schemas['FlowError'];
type UiMessage = Schemas['UiText'];

type Loaded = { redirect: string } | { flow: LoginFlow; notice?: UiMessage };

function notice(text: string): UiMessage {
  return { id: 0, type: 'error', text };
}

function asFlow(data: unknown): LoginFlow {
  return data as LoginFlow;
}

function flowError(data: unknown): FlowError | undefined {
  const body = data as Partial<FlowError> | null;
  return body && typeof body.error === 'object' ? (body as FlowError) : undefined;
}

async function fetchFlow(id: string): Promise<LoginFlow | undefined> {
  const { data, error, response } = await api.GET('/api/auth/login/flows', { params: { query: { id } } });
  if (response.ok) return asFlow(data);
  if (response.status === 410) {
    const next = flowError(error)?.use_flow_id;
    return next ? fetchFlow(next) : undefined;
  }
  if (response.status === 404) return undefined;
  throw new ApiError(response.status, error);
}

async function createFlow(query: ReturnType<typeof flowQuery>): Promise<Loaded> {
  const { data, error, response } = await api.GET('/api/auth/login/browser', { params: { query } });
  if (response.ok) return { flow: asFlow(data) };
  if (flowError(error)?.error.id === 'self_service_flow_return_to_forbidden') {
    const fresh = await createFlow({ ...query, return_to: undefined });
    return 'flow' in fresh ? { flow: fresh.flow, notice: notice(FLOW_MESSAGES.returnToForbidden) } : fresh;
  }
  throw new ApiError(response.status, error);
}

/** Loads the flow named by `flow`, or starts one; an already signed-in user
 * (and no refresh or second factor asked for) goes straight on. */
async function loadFlow(params: URLSearchParams): Promise<Loaded> {
  const query = flowQuery(params);
  if (!query.refresh && query.aal !== 'aal2') {
    const session = await api.GET('/api/auth/session');
    if (session.response.ok) return { redirect: safeReturnTo(query.return_to) };
  }
  const id = params.get('flow');
  if (id) {
    const existing = await fetchFlow(id);
    if (existing) return { flow: existing, notice: existing.id !== id ? notice(FLOW_MESSAGES.expired) : undefined };
  }
  return createFlow(query);
}

type Submitted = { returnTo: string } | { flow: LoginFlow; notice?: UiMessage };

/** The values a method's form sends: its group's fields. */
export type Fields = Record<string, string>;

/** The flow's WebAuthn step: the flow's challenge from the API, the key's
 * answer from the browser. A refusal or a closed prompt is shown on the flow. */
async function securityKey(flow: LoginFlow, csrfToken: string): Promise<{ fields: Fields } | { flow: LoginFlow; notice: UiMessage }> {
  const { data, error, response } = await api.POST('/api/auth/login/webauthn', {
    params: { query: { flow: flow.id } },
    body: { csrf_token: csrfToken },
  });
  if (!data) {
    const failure = flowError(error);
    if (response.status === 400 && failure) return { flow, notice: notice(failure.error.reason || failure.error.message) };
    throw new ApiError(response.status, error);
  }
  try {
    return { fields: { webauthn_login: await getCredential(data) } };
  } catch (problem) {
    const text = promptProblem(problem);
    if (text) return { flow, notice: notice(text) };
    throw problem;
  }
}

async function submitFlow(flow: LoginFlow, method: string, fields: Fields, params: URLSearchParams): Promise<Submitted> {
  const value = flow.ui.nodes.find((n) => n.attributes.name === 'csrf_token')?.attributes.value;
  const csrf = typeof value === 'string' ? value : '';
  if (method === 'webauthn') {
    const answer = await securityKey(flow, csrf);
    if ('flow' in answer) return answer;
    fields = { ...fields, ...answer.fields };
  }
  const { data, error, response } = await api.POST('/api/auth/login', {
    params: { query: { flow: flow.id } },
    body: { ...fields, method, csrf_token: csrf },
  });
  if (response.ok) {
    const body = data as { return_to?: string };
    return { returnTo: safeReturnTo(body.return_to ?? params.get('return_to')) };
  }
  if (response.status === 400) return { flow: asFlow(error) };
  const failure = flowError(error);
  if (response.status === 410 && failure?.use_flow_id) {
    const next = await fetchFlow(failure.use_flow_id);
    if (next) return { flow: next, notice: notice(FLOW_MESSAGES.expired) };
  }
  if (response.status === 410 || response.status === 403) {
    const fresh = await createFlow(flowQuery(params));
    if ('flow' in fresh) return { flow: fresh.flow, notice: notice(response.status === 403 ? FLOW_MESSAGES.csrf : FLOW_MESSAGES.expired) };
  }
  throw new ApiError(response.status, error);
}

/** The sign-in page's data: the current flow, its messages, and submitting it. */
export function useLoginFlow(params: URLSearchParams) {
  const loaded = useQuery({
    queryKey: ['login-flow', params.toString()],
    queryFn: () => loadFlow(params),
    retry: false,
    staleTime: Infinity,
    gcTime: 0,
  });
  // Whether the page may offer 'Create account'; sign-in works without it.
  const selfService = useQuery({
    queryKey: ['self-service'],
    queryFn: ({ signal }) => unwrap(api.GET('/api/auth/self_service', { signal })),
    retry: false,
  });
  const [current, setCurrent] = useState<{ flow: LoginFlow; notice?: UiMessage }>();
  const [failure, setFailure] = useState<string>();

  const submit = useMutation({
    mutationFn: ({ method, fields, flow }: { method: string; fields: Fields; flow: LoginFlow }) => submitFlow(flow, method, fields, params),
    onMutate: () => setFailure(undefined),
    onSuccess: (result) => {
      if ('returnTo' in result) window.location.assign(result.returnTo);
      else setCurrent(result);
    },
    onError: (error) => setFailure(errorMessage(error)),
  });

  const data = loaded.data;
  const state = current ?? (data && 'flow' in data ? data : undefined);
  const messages = [...(state?.notice ? [state.notice] : []), ...(state?.flow.ui.messages ?? [])];
  if (failure) messages.push(notice(failure));
  // Browsers use security keys at one origin only: elsewhere, say where.
  const keysAt = selfService.data?.webauthn_origin;
  const nodes = state?.flow.ui.nodes ?? [];
  const keysHere = keysAt === window.location.origin;
  if (!keysHere && keysAt && nodes.some((n) => n.group === 'webauthn')) {
    messages.push({ id: 0, type: 'info', text: `Security keys and passkeys work at ${keysAt}: sign in there to use one.` });
  }
  return {
    redirect: data && 'redirect' in data ? data.redirect : undefined,
    nodes: keysHere ? nodes : nodes.filter((n) => n.group !== 'webauthn'),
    messages,
    loadError: loaded.error,
    isLoading: loaded.isLoading,
    registration: selfService.data?.registration ?? false,
    submit: (method: string, fields: Fields) => state && submit.mutate({ method, fields, flow: state.flow }),
    // After success the page is being left for return_to; keep the button busy.
    isSubmitting: submit.isPending || (submit.data !== undefined && 'returnTo' in submit.data),
  };
}
