/**
 * SQL against the embedded database a running e2e archive serves (`scripts/embedded-db.ts` leaves
 * its socket's address in the data folder), so a browser test can compare what a page shows with
 * what the database holds instead of hard-coding numbers.
 */
import pg from 'pg';
import { readEmbeddedAddress } from '../../src/lib/server/db/embedded-address.ts';

/** Runs one query on the archive whose data folder is `dataDir`; its rows. */
export async function embeddedSql<T extends pg.QueryResultRow>(dataDir: string, text: string, values: unknown[] = []): Promise<T[]> {
  const url = readEmbeddedAddress(dataDir);
  if (!url) throw new Error(`the archive in ${dataDir} serves no embedded database`);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}
