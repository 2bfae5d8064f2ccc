import { request, type APIRequestContext, type FullConfig } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dbRows } from './helpers';
import { seed } from './seed';
import { ADMIN, ADMIN_STATE, AGENT, CRD_SCOPE, CRD_TEAM, GUEST, MEMBER, USER_PASSWORD, VIEWER, VIEWER_STATE, e2eDatabaseUrl } from './env';

interface Node {
  attributes: { name: string; value?: unknown };
}

/** Signs in through a sign-in flow, as the browser would. */
async function signIn(ctx: APIRequestContext, identifier: string, password: string): Promise<void> {
  const flow = (await (await ctx.get('/api/auth/login/browser')).json()) as { id: string; ui: { nodes: Node[] } };
  const csrf = flow.ui.nodes.find((n) => n.attributes.name === 'csrf_token')?.attributes.value;
  const res = await ctx.post(`/api/auth/login?flow=${flow.id}`, { data: { method: 'password', identifier, password, csrf_token: csrf } });
  if (!res.ok()) throw new Error(`sign-in as ${identifier} failed: ${res.status()} ${await res.text()}`);
}

/** Invites a person with a role and accepts the invitation; returns their context. */
async function invite(admin: APIRequestContext, baseURL: string, who: { email: string; first: string; last: string }, role: string) {
  const res = await admin.post('/api/auth/invite_user', { data: { firstName: who.first, lastName: who.last, email: who.email, role } });
  if (!res.ok()) throw new Error(`invite ${who.email}: ${res.status()} ${await res.text()}`);
  const { payload } = (await res.json()) as { payload: { link: string } };
  const token = new URL(payload.link).searchParams.get('token');
  const ctx = await request.newContext({ baseURL });
  const accepted = await ctx.post('/api/auth/invite', { data: { token, password: USER_PASSWORD } });
  if (!accepted.ok()) throw new Error(`accept invite ${who.email}: ${accepted.status()} ${await accepted.text()}`);
  return ctx;
}

/** A KubernetesCRD access scope, put in place by the operator's directory mode. */
function syncCrdScope(teamName: string): void {
  const dir = mkdtempSync(join(tmpdir(), 'qd-e2e-crds-'));
  writeFileSync(
    join(dir, 'accessscope.yaml'),
    [
      'apiVersion: quarterdeck.dev/v1',
      'kind: AccessScope',
      'metadata:',
      `  name: ${CRD_SCOPE}`,
      '  namespace: default',
      'spec:',
      '  description: Managed by a CRD',
      '  subject:',
      `    team: ${teamName}`,
      '  resources:',
      '    - config',
      '  scopes:',
      '    - names:',
      '        - checkout',
      '',
    ].join('\n'),
  );
  const bin = process.env.QD_OPERATOR_BIN ?? fileURLToPath(new URL('../../target/debug/quarterdeck-operator', import.meta.url));
  try {
    execFileSync(bin, ['--from-dir', dir, '--admin-listen', '127.0.0.1:0'], {
      env: { ...process.env, DATABASE_URL: e2eDatabaseUrl(), RUST_LOG: 'warn' },
      stdio: 'inherit',
      timeout: 60_000,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export default async function globalSetup(config: FullConfig): Promise<void> {
  const baseURL = config.projects[0]?.use.baseURL;
  if (!baseURL) throw new Error('baseURL is not set');
  mkdirSync(join(ADMIN_STATE, '..'), { recursive: true });

  // Cookie-signed writes must name the console's origin, as a browser does.
  const admin = await request.newContext({ baseURL, extraHTTPHeaders: { Origin: new URL(baseURL).origin } });
  await signIn(admin, ADMIN.email, ADMIN.password);
  await admin.storageState({ path: ADMIN_STATE });

  const viewer = await invite(admin, baseURL, VIEWER, 'viewer');
  await viewer.storageState({ path: VIEWER_STATE });
  await viewer.dispose();
  await (await invite(admin, baseURL, GUEST, 'guest')).dispose();
  await (await invite(admin, baseURL, MEMBER, 'viewer')).dispose();

  const team = await admin.post('/api/db/teams', { data: { name: CRD_TEAM }, headers: { Prefer: 'return=representation' } });
  if (!team.ok()) throw new Error(`create team: ${team.status()} ${await team.text()}`);

  // Agents register themselves; the picker needs one to list.
  await seed('agent', { name: AGENT });
  syncCrdScope(CRD_TEAM);
  const [row] = await dbRows<{ source: string }>(admin, `access_scopes?name=eq.${CRD_SCOPE}&deleted_at=is.null&select=source`);
  if (row?.source !== 'KubernetesCRD') throw new Error(`the operator did not sync ${CRD_SCOPE}`);
  await admin.dispose();
}
