import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { SCREENSHOTS } from './env';

/** Saves a full-page screenshot of the current screen as a test artifact,
 * when `QD_E2E_SCREENSHOTS` is set (one costs up to a second on a busy machine). */
export async function snap(page: Page, name: string): Promise<void> {
  if (!process.env.QD_E2E_SCREENSHOTS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
}

/** `name`, or `name` marked with the attempt when Playwright retries the test:
 * what an earlier attempt created through the UI is still there. */
export function attempt(name: string): string {
  const { retry } = test.info();
  return retry ? `${name}-retry${retry}` : name;
}

/** Rows of the data API (`canaries?name=eq.web&select=spec`), read as the
 * signed-in user of `request`. */
export async function dbRows<T>(request: APIRequestContext, query: string): Promise<T[]> {
  const res = await request.get(`/api/db/${query}`);
  if (!res.ok()) throw new Error(`GET /api/db/${query}: ${res.status()} ${await res.text()}`);
  return (await res.json()) as T[];
}

export async function expectToast(page: Page, text: string): Promise<void> {
  // Alert titles carry a screen-reader prefix, so the text is matched as a substring.
  await expect(page.locator('.qd-toasts').getByText(text)).toBeVisible();
}

/** An option of an open select: single-choice options, or multi-select checkboxes. */
export function option(page: Page, name: string | RegExp): Locator {
  const exact = typeof name === 'string';
  return page.getByRole('option', { name, exact }).or(page.getByRole('checkbox', { name, exact }));
}

/** Opens a select by its accessible name and picks an option. */
export async function choose(scope: Page | Locator, page: Page, select: string, name: string | RegExp): Promise<void> {
  await scope.getByRole('button', { name: select, exact: true }).click();
  await option(page, name).click();
}

/** Sets the execution policy's "Allow scripts from the console" through the
 * API, as the signed-in admin of `page`. */
export async function allowConsoleScripts(page: Page, allowed: boolean): Promise<void> {
  const baseURL = test.info().project.use.baseURL;
  if (!baseURL) throw new Error('baseURL is not set');
  const res = await page.request.put('/api/settings/execution-policy', {
    data: { allowConsoleScripts: allowed },
    headers: { Origin: new URL(baseURL).origin },
  });
  if (!res.ok()) throw new Error(`execution policy: ${res.status()} ${await res.text()}`);
}
