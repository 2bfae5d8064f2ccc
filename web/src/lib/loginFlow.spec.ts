import { describe, expect, it } from 'vitest';
import { LOGIN_TITLES, errorPageMessage, flowQuery, loginTitle, safeReturnTo } from './loginFlow';

describe('loginTitle', () => {
  it('depends on refresh and aal', () => {
    expect(loginTitle(new URLSearchParams(''))).toBe(LOGIN_TITLES.signIn);
    expect(loginTitle(new URLSearchParams('refresh=true'))).toBe(LOGIN_TITLES.refresh);
    expect(loginTitle(new URLSearchParams('aal=aal2&refresh=true'))).toBe(LOGIN_TITLES.aal2);
  });
});

describe('safeReturnTo', () => {
  const origin = 'https://qd.example.com';
  it.each(['/', '/settings/tokens?a=1', '/health#top', '/a/../b'])('follows %j', (path) => {
    expect(safeReturnTo(path, origin)).toBe(path);
  });
  // Browsers drop tabs and newlines and read a backslash as a slash, so each would leave the origin.
  it.each([
    'https://evil.example',
    '//evil.example',
    '/\\evil.example',
    '\\\\evil.example',
    '/\t/evil.example',
    '/\n/evil.example',
    '/\r/evil.example',
    '/ /evil.example',
    '/\u0000/evil.example',
    '/\u007f/evil.example',
    '/\u00a0/evil.example',
    'javascript:alert(1)',
    'health',
    '',
    null,
    undefined,
  ])('refuses %j', (value) => {
    expect(safeReturnTo(value, origin)).toBe('/');
  });
});

it('passes return_to, refresh and aal to the flow', () => {
  expect(flowQuery(new URLSearchParams('return_to=/x&refresh=true&aal=aal2'))).toEqual({ return_to: '/x', refresh: true, aal: 'aal2' });
  expect(flowQuery(new URLSearchParams('refresh=false'))).toEqual({});
});

it('describes error codes', () => {
  expect(errorPageMessage('BAD_SESSION')).toMatch(/^Bad Session\./);
  expect(errorPageMessage('OTHER')).toBe('Unknown error');
  expect(errorPageMessage(null)).toBe('Unknown error');
});
