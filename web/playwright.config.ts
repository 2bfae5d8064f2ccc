import { defineConfig } from '@playwright/test';
import { randomBytes } from 'node:crypto';

// Chosen once in the runner process; workers inherit them through the environment.
// The port stays below Linux's ephemeral range (32768 up), where the kernel
// picks the ports of outgoing connections and of the test servers: a port
// drawn from there was once already taken and the console could not start.
process.env.QD_E2E_PORT ??= String(20000 + Math.floor(Math.random() * 12000));
process.env.QD_E2E_DB ??= `e2e_${randomBytes(6).toString('hex')}`;
const baseURL = `http://127.0.0.1:${process.env.QD_E2E_PORT}`;

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results/output',
  globalSetup: './e2e/global-setup.ts',
  globalTeardown: './e2e/global-teardown.ts',
  // One worker: the machine is small and the tests share one database.
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list'], ['html', { open: 'never', outputFolder: 'playwright-report' }]],
  use: {
    baseURL,
    viewport: { width: 1440, height: 900 },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.QD_CHROMIUM ?? '/usr/bin/chromium',
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
    stdout: 'pipe',
    stderr: 'pipe',
  },
});
