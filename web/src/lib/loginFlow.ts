/** Sign-in page decisions that depend only on the URL and the flow. */

export const LOGIN_TITLES = {
  signIn: 'Sign In to your account',
  refresh: 'Confirm Action',
  aal2: 'Two-Factor Authentication',
} as const;

export function loginTitle(params: URLSearchParams): string {
  if (params.get('aal') === 'aal2') return LOGIN_TITLES.aal2;
  if (params.get('refresh') === 'true') return LOGIN_TITLES.refresh;
  return LOGIN_TITLES.signIn;
}

/** Only paths on this origin are followed after sign-in (the API's rule).
 * Nothing is stripped: browsers drop tabs and newlines and read `\` as `/`,
 * so `/\t/evil.example` would lead to `//evil.example`; any control
 * character, whitespace or backslash refuses the value outright. */
export function safeReturnTo(value: string | null | undefined, origin: string = window.location.origin): string {
  if (!value || !value.startsWith('/') || value.startsWith('//')) return '/';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f\s\\]/u.test(value)) return '/';
  try {
    return new URL(value, origin).origin === origin ? value : '/';
  } catch {
    return '/';
  }
}

/** Query of the flow-creation call, from the page's parameters. */
export function flowQuery(params: URLSearchParams): { return_to?: string; refresh?: boolean; aal?: string } {
  const query: { return_to?: string; refresh?: boolean; aal?: string } = {};
  const returnTo = params.get('return_to');
  if (returnTo) query.return_to = returnTo;
  if (params.get('refresh') === 'true') query.refresh = true;
  const aal = params.get('aal');
  if (aal) query.aal = aal;
  return query;
}

export const ERROR_PAGE_MESSAGES: Record<string, string> = {
  BAD_SESSION: 'Bad Session. Please try logging out and logging in again, if the problem persist, please contact us.',
};

export function errorPageMessage(code: string | null): string {
  return (code && ERROR_PAGE_MESSAGES[code]) || 'Unknown error';
}

export const FLOW_MESSAGES = {
  expired: 'Your interaction expired, please fill out the form again.',
  csrf: 'A security violation was detected, please fill out the form again.',
  returnToForbidden: 'The return_to address is not allowed.',
} as const;
