import { describe, expect, it } from 'vitest';
import { LOGIN_TITLES, errorPageMessage, flowQuery, loginTitle, safeReturnTo } from './loginFlow';

describe('loginTitle', () => {
  it('depends on refresh and aal', () => {
    expect(loginTitle(new URLSearchParams(''))).toBe(LOGIN_TITLES.signIn);
    expect(loginTitle(new URLSearchParams('refresh=true'))).toBe(LOGIN_TITLES.refresh);
    expect(loginTitle(new URLSearchParams('aal=aal2&refresh=true'))).toBe(LOGIN_TITLES.aal2);
  });
});

it('follows only same-origin return paths', () => {
  expect(safeReturnTo('/settings/tokens?a=1')).toBe('/settings/tokens?a=1');
  expect(safeReturnTo('https://evil.example')).toBe('/');
  expect(safeReturnTo('//evil.example')).toBe('/');
  expect(safeReturnTo(null)).toBe('/');
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
