import { defineConfig } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';

// Chosen once in the runner process; workers inherit them through the environment.
// The port stays below Linux's ephemeral range (32768 up), where the kernel
// picks the ports of outgoing connections and of the test servers: a port
// drawn from there was once already taken and the console could not start.
process.env.QD_E2E_PORT ??= String(20000 + Math.floor(Math.random() * 12000));
process.env.QD_E2E_DB ??= `e2e_${randomBytes(6).toString('hex')}`;
// Debian's headless shell draws less than the full browser in headless mode.
const CHROMIUM = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'];
const baseURL = `http://127.0.0.1:${process.env.QD_E2E_PORT}`;
// Shards run side by side (hack/e2e.sh), each with its own output.
const output = process.env.QD_E2E_OUTPUT ?? '.';

// The specs that seed at scale and print figures are benchmarks (hack/bench-ui),
// run only with QD_E2E_PERF=1; the suite leaves them out.
const PERF = /perf\.spec\.ts$/;
const perf = process.env.QD_E2E_PERF === '1';

export default defineConfig({
  testDir: 'e2e',
  ...(perf ? { testMatch: PERF } : { testIgnore: PERF }),
  outputDir: `${output}/test-results/output`,
  globalSetup: './e2e/global-setup.ts',
  // One worker: the tests of a run share one database. hack/e2e.sh runs
  // shards side by side instead, each with a database and server of its own.
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  // One retry in CI: a slow moment of a busy two-core machine should not fail
  // the suite. hack/e2e.sh names each test that needed it (flaky), a defect to fix.
  retries: process.env.CI ? 1 : 0,
  // Generous: shards share a small machine, and a passing test never waits these out.
  timeout: 90_000,
  expect: { timeout: 15_000 },
  reporter: [['list'], ['html', { open: 'never', outputFolder: `${output}/playwright-report` }]],
  use: {
    baseURL,
    viewport: { width: 1440, height: 900 },
    // Recording a trace took nearly half of a run's CPU (DOM snapshots and
    // screencast frames at every step): only a retried test records one.
    trace: 'on-first-retry',
    // No transitions to wait out before a click.
    reducedMotion: 'reduce',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.QD_CHROMIUM ?? CHROMIUM.find((path) => existsSync(path)),
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  webServer: {
    command: 'node e2e/serve.mjs',
    url: `${baseURL}/api/about`,
    timeout: 120_000,
    reuseExistingServer: false,
    // serve.mjs drops its database once the API and operator have stopped.
    gracefulShutdown: { signal: 'SIGTERM', timeout: 20_000 },
    stdout: 'pipe',
    stderr: 'pipe',
  },
});
