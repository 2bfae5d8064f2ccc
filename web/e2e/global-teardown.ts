import { seed } from './seed';

/** Drops the e2e database (the server may still hold connections). */
export default async function globalTeardown(): Promise<void> {
  const { DATABASE_URL, QD_E2E_DB } = process.env;
  if (!DATABASE_URL || !QD_E2E_DB || process.env.QD_E2E_KEEP_DB) return;
  await seed('drop-database', { name: QD_E2E_DB }, DATABASE_URL);
}
