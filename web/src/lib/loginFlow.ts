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

/** Only same-origin paths are followed after sign-in. */
export function safeReturnTo(value: string | null | undefined): string {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.includes('\\')) return '/';
  return value;
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
