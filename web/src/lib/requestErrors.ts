/** How failed requests read to users, the same on every screen. */

export const REQUEST_MESSAGES = {
  timeout: 'Request timed out. Please try again.',
  network: 'Network Error. Please try again.',
  offline: 'No internet connection. Please try again.',
  fallback: 'An error occurred',
} as const;

/** The message of a fetch that threw (no response at all). */
export function failureMessage(error: unknown, online: boolean): string {
  if (error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return REQUEST_MESSAGES.timeout;
  }
  return online ? REQUEST_MESSAGES.network : REQUEST_MESSAGES.offline;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The human message in an error body: the API's `message`, a flow error's
 * `error.message`, or a plain-text `error`. */
export function bodyMessage(body: unknown): string | undefined {
  if (!isRecord(body)) return typeof body === 'string' && body.trim() ? body : undefined;
  if (isRecord(body.error) && typeof body.error.message === 'string') return body.error.message;
  if (typeof body.message === 'string' && body.message) return body.message;
  if (typeof body.error === 'string' && body.error) return body.error;
  return undefined;
}

/** Where a 401 sends the user: sign-in, coming back to the current page. */
export function loginPath(pathAndQuery: string): string {
  return `/login?return_to=${encodeURIComponent(pathAndQuery)}`;
}

/** Pages that work signed out: a 401 on them is an answer, not a redirect. */
const PUBLIC_PATHS = [
  '/login',
  '/error',
  '/flow-error',
  '/invite',
  '/reset-password',
  '/recovery',
  '/registration',
  '/verification',
  // Published health (decision 104.15); it sends visitors to sign-in itself when not published.
  '/view/health',
];

export function isPublicPath(pathname: string): boolean {
  return PUBLIC_PATHS.includes(pathname);
}
