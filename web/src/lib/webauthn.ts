import type { Schemas } from '../api/client';

type CreationOptions = Schemas['CreationOptions'];
type RequestOptions = Schemas['RequestOptions'];

/** Base64url (no padding), as the API sends binary values. */
export function toBytes(text: string): ArrayBuffer {
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes.buffer;
}

export function toBase64url(buffer: ArrayBuffer): string {
  let binary = '';
  for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The message for a prompt the person closed or let time out, and for a
 * browser without WebAuthn. */
export function promptProblem(error: unknown): string | undefined {
  if (typeof window.PublicKeyCredential === 'undefined') return 'This browser cannot use security keys here.';
  if (error instanceof DOMException) {
    if (error.name === 'NotAllowedError') return 'The security key prompt was closed or timed out.';
    if (error.name === 'InvalidStateError') return 'This security key is registered already.';
    return `The security key could not be used: ${error.message}`;
  }
  return undefined;
}

/** Asks the browser to make a credential with the API's options; answers
 * the credential in the JSON form the API takes. */
export async function createCredential(options: CreationOptions) {
  const credential = (await navigator.credentials.create({
    publicKey: {
      ...options,
      challenge: toBytes(options.challenge),
      user: { ...options.user, id: toBytes(options.user.id) },
      pubKeyCredParams: options.pubKeyCredParams.map((p) => ({ type: 'public-key' as const, alg: p.alg })),
      excludeCredentials: options.excludeCredentials.map((c) => ({ type: 'public-key' as const, id: toBytes(c.id) })),
      authenticatorSelection: {
        residentKey: options.authenticatorSelection.residentKey as ResidentKeyRequirement,
        requireResidentKey: options.authenticatorSelection.requireResidentKey,
        userVerification: options.authenticatorSelection.userVerification as UserVerificationRequirement,
      },
      attestation: 'none',
    },
  })) as PublicKeyCredential | null;
  if (!credential) throw new DOMException('No credential was made.', 'NotAllowedError');
  const response = credential.response as AuthenticatorAttestationResponse;
  return {
    id: credential.id,
    rawId: toBase64url(credential.rawId),
    type: credential.type,
    response: {
      clientDataJSON: toBase64url(response.clientDataJSON),
      attestationObject: toBase64url(response.attestationObject),
    },
  };
}

/** Asks the browser for a signature with the API's options; answers the
 * credential's JSON, as a sign-in flow's `webauthn_login` takes it. */
export async function getCredential(options: RequestOptions): Promise<string> {
  const credential = (await navigator.credentials.get({
    publicKey: {
      challenge: toBytes(options.challenge),
      rpId: options.rpId,
      timeout: options.timeout,
      allowCredentials: options.allowCredentials.map((c) => ({ type: 'public-key' as const, id: toBytes(c.id) })),
      userVerification: options.userVerification as UserVerificationRequirement,
    },
  })) as PublicKeyCredential | null;
  if (!credential) throw new DOMException('No credential was given.', 'NotAllowedError');
  const response = credential.response as AuthenticatorAssertionResponse;
  return JSON.stringify({
    id: credential.id,
    rawId: toBase64url(credential.rawId),
    type: credential.type,
    response: {
      clientDataJSON: toBase64url(response.clientDataJSON),
      authenticatorData: toBase64url(response.authenticatorData),
      signature: toBase64url(response.signature),
      userHandle: response.userHandle ? toBase64url(response.userHandle) : undefined,
    },
  });
}
