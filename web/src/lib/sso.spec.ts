import { describe, expect, it } from 'vitest';
import { SSO_ERRORS, ssoErrorMessage, ssoStartHref } from './sso';

describe('single sign-on', () => {
  it('names every callback error and falls back for unknown ones', () => {
    expect(ssoErrorMessage(null)).toBeUndefined();
    expect(ssoErrorMessage('email_not_verified')).toBe(SSO_ERRORS.email_not_verified);
    expect(ssoErrorMessage('something_new')).toBe('Signing in with the provider failed.');
  });

  it('builds start links with return_to and link', () => {
    expect(ssoStartHref('/api/auth/sso/corp/start', '/health?x=1')).toBe('/api/auth/sso/corp/start?return_to=%2Fhealth%3Fx%3D1');
    expect(ssoStartHref('/api/auth/sso/corp/start', '/profile-settings', true)).toBe(
      '/api/auth/sso/corp/start?return_to=%2Fprofile-settings&link=true',
    );
  });
});
