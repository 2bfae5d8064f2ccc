import pg from 'pg';

/** Drops the e2e database (the server may still hold connections). */
export default async function globalTeardown(): Promise<void> {
  const { DATABASE_URL, QD_E2E_DB } = process.env;
  if (!DATABASE_URL || !QD_E2E_DB || process.env.QD_E2E_KEEP_DB) return;
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${QD_E2E_DB}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
