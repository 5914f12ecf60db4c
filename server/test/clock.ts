// Tests move a stored deadline into the past instead of sleeping until it passes: what the server
// compares with its clock is the row's time, so an upload or a job "aged" this way is judged as one
// that waited.
import { sql } from 'kysely';
import { nowIso, openDatabase } from '../src/db/database.js';
import type { TestDatabase } from './databases.js';

/** A moment `ms` milliseconds ago, written as the database keeps times. */
export function agoIso(ms: number): string {
  return nowIso(new Date(Date.now() - ms));
}

/** While no server holds the database (one was killed): every row's `column` of `table` passed `ms` ago. */
export async function passDeadlines(database: TestDatabase, table: string, column: string, ms = 100): Promise<void> {
  const handle = openDatabase({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
  try {
    await sql`update ${sql.table(table)} set ${sql.ref(column)} = ${agoIso(ms)} where ${sql.ref(column)} is not null`.execute(handle.db);
  } finally {
    await handle.close();
  }
}
