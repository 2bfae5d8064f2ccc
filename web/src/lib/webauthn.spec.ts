// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { promptProblem, toBase64url, toBytes } from './webauthn';

describe('base64url', () => {
  it('round-trips every byte, without padding', () => {
    const bytes = new Uint8Array(256).map((_, i) => i);
    const text = toBase64url(bytes.buffer);
    expect(text).not.toMatch(/[+/=]/);
    expect(new Uint8Array(toBytes(text))).toEqual(bytes);
  });

  it('reads what the API sends', () => {
    expect(new Uint8Array(toBytes('-_8'))).toEqual(new Uint8Array([0xfb, 0xff]));
    expect(toBase64url(new Uint8Array([0xfb, 0xff]).buffer)).toBe('-_8');
  });
});

describe('promptProblem', () => {
  it('names a closed prompt and a key registered already', () => {
    Object.assign(window, { PublicKeyCredential: function PublicKeyCredential() {} });
    expect(promptProblem(new DOMException('x', 'NotAllowedError'))).toBe('The security key prompt was closed or timed out.');
    expect(promptProblem(new DOMException('x', 'InvalidStateError'))).toBe('This security key is registered already.');
    expect(promptProblem(new Error('other'))).toBeUndefined();
  });
});
