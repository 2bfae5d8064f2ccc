import { describe, expect, it } from 'vitest';
import { REQUEST_MESSAGES, bodyMessage, failureMessage, isPublicPath, loginPath } from './requestErrors';

describe('failureMessage', () => {
  it('names timeouts, network errors and being offline', () => {
    expect(failureMessage(new DOMException('t', 'TimeoutError'), true)).toBe(REQUEST_MESSAGES.timeout);
    expect(failureMessage(new TypeError('Failed to fetch'), true)).toBe(REQUEST_MESSAGES.network);
    expect(failureMessage(new TypeError('Failed to fetch'), false)).toBe(REQUEST_MESSAGES.offline);
  });
});

describe('bodyMessage', () => {
  it('reads the shapes the API answers with', () => {
    expect(bodyMessage({ error: 'EINVALID', message: 'Name is required' })).toBe('Name is required');
    expect(bodyMessage({ error: { id: 'security_csrf_violation', message: 'A security violation' } })).toBe('A security violation');
    expect(bodyMessage({ code: '23505', message: 'duplicate', details: null })).toBe('duplicate');
    expect(bodyMessage({ error: 'boom' })).toBe('boom');
    expect(bodyMessage(null)).toBeUndefined();
  });
});

it('sends a 401 to sign-in with the current path and query', () => {
  expect(loginPath('/settings/tokens?x=1')).toBe('/login?return_to=%2Fsettings%2Ftokens%3Fx%3D1');
  expect(isPublicPath('/login')).toBe(true);
  expect(isPublicPath('/settings/tokens')).toBe(false);
});
