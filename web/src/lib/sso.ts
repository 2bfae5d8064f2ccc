/** Single sign-on: the messages of the `sso_error` codes the API's callback
 * sends the browser back with (console-api/src/routes/sso.rs), and the
 * links the buttons follow. */

export const SSO_ERRORS: Record<string, string> = {
  invalid_request: 'The sign-in provider sent back an incomplete answer. Please try again.',
  unknown_provider: 'That sign-in provider is not available.',
  invalid_state: 'This sign-in expired, was already used or was started in another browser. Please try again.',
  access_denied: 'The sign-in provider did not sign you in.',
  provider_unavailable: 'The sign-in provider could not be reached. Please try again later.',
  code_refused: 'The sign-in provider refused this sign-in. Please try again.',
  invalid_token: 'The sign-in provider’s answer could not be verified, so you were not signed in.',
  email_not_verified: 'Your email address is not verified at the sign-in provider, so it cannot be used here.',
  no_account:
    'No account here is linked to that sign-in. Ask an administrator to invite you, or sign in with your password and link it from your profile.',
  no_email: 'The sign-in provider gave no email address, which a new account needs.',
  linked_elsewhere: 'That account at the provider is linked to someone else.',
  already_linked: 'Another account at that provider is linked to you already; unlink it first.',
  session_required: 'Sign in first to link an account.',
  server_error: 'Signing in failed on the server. Please try again.',
};

/** The message of an `sso_error` code; undefined when there is none. */
export function ssoErrorMessage(code: string | null): string | undefined {
  if (!code) return undefined;
  return SSO_ERRORS[code] ?? 'Signing in with the provider failed.';
}

/** Where a sign-in button goes: the provider's start, back to `returnTo`. */
export function ssoStartHref(startUrl: string, returnTo: string, link = false): string {
  const query = new URLSearchParams({ return_to: returnTo });
  if (link) query.set('link', 'true');
  return `${startUrl}?${query.toString()}`;
}
