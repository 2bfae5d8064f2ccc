import { failureMessage, isPublicPath, loginPath } from '../lib/requestErrors';
import { ApiError } from './errors';

const TIMEOUT_MS = 30_000;

/** Sent on every call: cross-site forms cannot send it, and the API refuses
 * cookie-signed writes without it (or a JSON body). */
export const REQUESTED_WITH = { name: 'X-Requested-With', value: 'quarterdeck' } as const;

/** Calls whose 401 is an answer (the sign-in pages ask "am I signed in?"). */
const AUTH_PROBES = ['/api/auth/session', '/api/auth/login'];

/** The provider's 403 ids of a session that must do something first, and
 * where the console does it. */
const SESSION_STEPS: Record<string, string> = {
  session_aal2_required: '/login?aal=aal2',
  second_factor_enrolment_required: '/profile-settings',
};

/** Sends the browser to finish signing in (a second factor) or to enrol one,
 * coming back to the current page. */
async function followSessionStep(response: Response): Promise<void> {
  // The id sits in the API's error, the provider's `error`, or the data API's `details`.
  const body = (await readJson(response.clone())) as { id?: unknown; error?: { id?: unknown }; details?: { id?: unknown } } | null;
  const id = [body?.id, body?.error?.id, body?.details?.id].find((v): v is string => typeof v === 'string');
  const target = id ? SESSION_STEPS[id] : undefined;
  if (!target) return;
  const { pathname, search } = window.location;
  if (isPublicPath(pathname) || pathname === target.split('?')[0]) return;
  const separator = target.includes('?') ? '&' : '?';
  window.location.assign(`${target}${separator}return_to=${encodeURIComponent(pathname + search)}`);
}

export function redirectToLogin(): void {
  const { pathname, search } = window.location;
  if (isPublicPath(pathname)) return;
  window.location.assign(loginPath(pathname + search));
}

/** fetch for every API call: a timeout, user-facing messages for requests that
 * got no answer, and the 401 redirect to sign-in. */
export async function apiFetch(input: Request): Promise<Response> {
  const signal = AbortSignal.any([input.signal, AbortSignal.timeout(TIMEOUT_MS)]);
  let response: Response;
  try {
    const headers = new Headers(input.headers);
    headers.set(REQUESTED_WITH.name, REQUESTED_WITH.value);
    const request = new Request(input, { signal, credentials: 'same-origin', headers });
    response = await fetch(request);
  } catch (error) {
    if (input.signal.aborted) throw error;
    throw new ApiError(0, null, failureMessage(error, navigator.onLine));
  }
  const path = new URL(input.url, window.location.origin).pathname;
  if (response.status === 401 && !AUTH_PROBES.some((p) => path.startsWith(p))) redirectToLogin();
  if (response.status === 403) await followSessionStep(response);
  return response;
}

/** The JSON body of a response, or null when it has none. */
export async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
