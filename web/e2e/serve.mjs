// The e2e web server: a fresh database on the server DATABASE_URL names (made
// by quarterdeck-seed, which the tests seed with too), the
// real quarterdeck-api serving web/dist (or QD_WEB_DIR) on it, and the
// operator's health check engine (for Run Now).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const { DATABASE_URL, QD_E2E_DB, QD_E2E_PORT } = process.env;
if (!DATABASE_URL || !QD_E2E_DB || !QD_E2E_PORT) {
  console.error('DATABASE_URL (a PostgreSQL server to create the e2e database on) is required');
  process.exit(1);
}
const web = fileURLToPath(new URL('..', import.meta.url));
const bin = process.env.QD_API_BIN ?? fileURLToPath(new URL('../../target/debug/quarterdeck-api', import.meta.url));
const operatorBin = process.env.QD_OPERATOR_BIN ?? fileURLToPath(new URL('../../target/debug/quarterdeck-operator', import.meta.url));
const seedBin = process.env.QD_SEED_BIN ?? fileURLToPath(new URL('../../target/debug/quarterdeck-seed', import.meta.url));

execFileSync(seedBin, ['--database-url', DATABASE_URL, 'create-database', JSON.stringify({ name: QD_E2E_DB })], {
  stdio: ['ignore', 'ignore', 'inherit'],
});

const url = new URL(DATABASE_URL);
url.pathname = `/${QD_E2E_DB}`;
// Both binaries share a connection key file of their own, never one in the tree.
const keyDir = mkdtempSync(join(tmpdir(), 'quarterdeck-e2e-'));
const QUARTERDECK_CONNECTION_KEY_FILE = join(keyDir, 'connection-key');
const child = spawn(bin, [], {
  stdio: 'inherit',
  env: {
    ...process.env,
    DATABASE_URL: url.toString(),
    QUARTERDECK_CONNECTION_KEY_FILE,
    QUARTERDECK_LISTEN: `127.0.0.1:${QD_E2E_PORT}`,
    QUARTERDECK_PUBLIC_URL: `http://127.0.0.1:${QD_E2E_PORT}`,
    // Browsers make no security keys for an IP address: keys work at localhost.
    QUARTERDECK_WEBAUTHN_ORIGIN: `http://localhost:${QD_E2E_PORT}`,
    QUARTERDECK_ADMIN_PASSWORD: process.env.QD_E2E_ADMIN_PASSWORD ?? 'e2e-admin-password',
    QUARTERDECK_WEB_DIR: process.env.QD_WEB_DIR ?? `${web}dist`,
    // Tests seed checks in SQL and look at once: a shared summary could predate the seed.
    QUARTERDECK_SUMMARY_CACHE_TTL: '0s',
    // Health is published, so /view/health is tested signed out too (health.spec.ts).
    QUARTERDECK_PUBLIC_HEALTH: 'true',
    RUST_LOG: process.env.RUST_LOG ?? 'warn',
  },
});
const engine = spawn(operatorBin, ['--engine-only', '--admin-listen', '127.0.0.1:0'], {
  stdio: 'inherit',
  env: {
    ...process.env,
    DATABASE_URL: url.toString(),
    QUARTERDECK_CONNECTION_KEY_FILE,
    RUST_LOG: process.env.RUST_LOG ?? 'warn',
  },
});
// Playwright stops this server when the tests end (SIGTERM, gracefulShutdown
// in playwright.config.ts): the database goes once both processes are gone,
// so neither logs a database that no longer exists.
let running = 2;
/** @param {number | null} code */
const exited = (code) => {
  running -= 1;
  if (running > 0) return;
  if (!process.env.QD_E2E_KEEP_DB)
    execFileSync(seedBin, ['--database-url', DATABASE_URL, 'drop-database', JSON.stringify({ name: QD_E2E_DB })], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  rmSync(keyDir, { recursive: true, force: true });
  process.exit(code ?? 0);
};
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM']))
  process.on(signal, () => {
    engine.kill(signal);
    child.kill(signal);
  });
child.on('exit', (code) => {
  engine.kill('SIGTERM');
  exited(code);
});
engine.on('exit', (code) => {
  child.kill('SIGTERM');
  exited(code);
});
