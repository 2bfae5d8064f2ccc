// A real OpenID Connect provider for the single sign-on tests: `oidc-provider`
// (an OpenID Certified implementation) with its development interactions,
// on 127.0.0.1:PORT. hack/lib/servers/oidc.sh installs it and starts this.
//
// Accounts: whatever login the sign-in form is given, as
// `EMAIL[|VERIFIED[|GROUP,GROUP...]]` (VERIFIED `true` or `false`, default
// true); the login is the account's `sub`. Any password is accepted. Consent
// is granted without asking (a first-party client).
//
// Clients (all with secret QD_OIDC_CLIENT_SECRET, client_secret_basic, PKCE
// required, any redirect URI of a loopback console's callback):
//   quarterdeck            the ordinary client;
//   quarterdeck-wrong-aud  its ID tokens are re-signed with another audience;
//   quarterdeck-expired    its ID tokens are re-signed as expired an hour ago;
//   quarterdeck-alg-none   its ID tokens are unsigned (alg none);
//   quarterdeck-resigned   its ID tokens are re-signed unchanged (the control:
//                          re-signing alone must not break them).
// Re-signing uses the provider's own key, so only the claim under test is wrong.

import Provider from 'oidc-provider';
import * as jose from 'jose';

const port = Number(process.argv[2]);
const secret = process.env.QD_OIDC_CLIENT_SECRET;
const issuer = `http://127.0.0.1:${port}`;

const { privateKey } = await jose.generateKeyPair('RS256', { extractable: true });
const jwk = { ...(await jose.exportJWK(privateKey)), kid: 'qd-test-rs256', alg: 'RS256', use: 'sig' };

const CALLBACK = /^http:\/\/(127\.0\.0\.1|localhost):\d+\/api\/auth\/sso\/[a-z0-9-]+\/callback$/;
const TAMPERED = new Set([
  'quarterdeck-wrong-aud',
  'quarterdeck-expired',
  'quarterdeck-alg-none',
  'quarterdeck-resigned',
]);

const clients = ['quarterdeck', ...TAMPERED].map((client_id) => ({
  client_id,
  client_secret: secret,
  redirect_uris: ['http://127.0.0.1/api/auth/sso/registered/callback'],
  grant_types: ['authorization_code'],
  response_types: ['code'],
  token_endpoint_auth_method: 'client_secret_basic',
}));

function account(login) {
  const [email, verified = 'true', groups = ''] = login.split('|');
  return {
    accountId: login,
    async claims() {
      return {
        sub: login,
        email,
        email_verified: verified === 'true',
        name: `Test ${email.split('@')[0]}`,
        groups: groups ? groups.split(',') : [],
      };
    },
  };
}

const provider = new Provider(issuer, {
  clients,
  jwks: { keys: [jwk] },
  findAccount: async (ctx, id) => account(id),
  scopes: ['openid', 'email', 'profile', 'groups', 'offline_access'],
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['name'],
    groups: ['groups'],
  },
  features: { devInteractions: { enabled: true } },
  pkce: { required: () => true },
  cookies: { keys: ['quarterdeck-test-oidc-provider'] },
  async loadExistingGrant(ctx) {
    const grantId = ctx.oidc.result?.consent?.grantId
      || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
    if (grantId) return ctx.oidc.provider.Grant.find(grantId);
    const grant = new ctx.oidc.provider.Grant({
      clientId: ctx.oidc.client.clientId,
      accountId: ctx.oidc.session.accountId,
    });
    grant.addOIDCScope('openid email profile groups');
    await grant.save();
    return grant;
  },
});

// The tests' consoles listen on random loopback ports.
provider.Client.prototype.redirectUriAllowed = function redirectUriAllowed(uri) {
  return CALLBACK.test(uri);
};

const b64 = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');

provider.use(async (ctx, next) => {
  await next();
  const client = ctx.oidc?.client?.clientId;
  if (ctx.path !== '/token' || !TAMPERED.has(client) || !ctx.body?.id_token) return;
  const claims = jose.decodeJwt(ctx.body.id_token);
  const now = Math.floor(Date.now() / 1000);
  if (client === 'quarterdeck-alg-none') {
    ctx.body = { ...ctx.body, id_token: `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.` };
    return;
  }
  if (client === 'quarterdeck-wrong-aud') claims.aud = 'someone-else';
  if (client === 'quarterdeck-expired') {
    claims.iat = now - 7200;
    claims.exp = now - 3600;
  }
  const idToken = await new jose.SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: jwk.kid, typ: 'JWT' })
    .sign(privateKey);
  ctx.body = { ...ctx.body, id_token: idToken };
});

provider.listen(port, '127.0.0.1', () => {
  console.log(`oidc-provider ${issuer} listening`);
});
