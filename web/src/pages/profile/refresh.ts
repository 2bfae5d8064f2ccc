import { ApiError } from '../../api/errors';

/** The API's answer when a setting needs a recent sign-in. */
export function needsRefresh(error: unknown): boolean {
  if (!(error instanceof ApiError) || error.status !== 403) return false;
  const body = error.body as { error?: { id?: unknown } } | null;
  return body?.error?.id === 'session_refresh_required';
}

/** Sign in again ('Confirm Action'), then come back to this page. */
export function refreshPath(pathAndQuery: string): string {
  return `/login?refresh=true&return_to=${encodeURIComponent(pathAndQuery)}`;
}
