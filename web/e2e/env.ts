import { fileURLToPath } from 'node:url';

/** What the e2e harness set up, shared by setup and tests. */
export const ADMIN = { email: 'admin@localhost', password: process.env.QD_E2E_ADMIN_PASSWORD ?? 'e2e-admin-password' };
export const USER_PASSWORD = 'e2e-user-password-1';
export const VIEWER = { email: 'viewer@e2e.test', first: 'Vera', last: 'Viewer' };
export const GUEST = { email: 'guest@e2e.test', first: 'Gus', last: 'Guest' };
export const MEMBER = { email: 'member@e2e.test', first: 'Mia', last: 'Member' };
export const CRD_TEAM = 'e2e-crd-team';
export const CRD_SCOPE = 'e2e-crd-scope';
export const AGENT = 'e2e-agent';

// Per run, so runs side by side do not sign each other out.
const state = fileURLToPath(new URL(`./.state/${process.env.QD_E2E_DB ?? 'default'}/`, import.meta.url));
export const ADMIN_STATE = `${state}admin.json`;
export const VIEWER_STATE = `${state}viewer.json`;
export const SCREENSHOTS = fileURLToPath(new URL('../test-results/screenshots/', import.meta.url));

export function e2eDatabaseUrl(): string {
  const { DATABASE_URL, QD_E2E_DB } = process.env;
  if (!DATABASE_URL || !QD_E2E_DB) throw new Error('DATABASE_URL and QD_E2E_DB must be set');
  const url = new URL(DATABASE_URL);
  url.pathname = `/${QD_E2E_DB}`;
  return url.toString();
}
