// Where a test looks for a value that must never be kept (a project key, a planted patient name):
// every file under a folder, and every row of every table as the database itself prints it.
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import type { Db } from '../src/db/database.js';

export function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : e.isFile() ? [path.join(dir, e.name)] : []));
}

export async function everyRowAsText(db: Db, dialect: string): Promise<string> {
  const tables =
    dialect === 'postgres'
      ? (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = 'public'`.execute(db)).rows
      : (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)).rows;
  const texts: string[] = [];
  for (const { name } of tables) texts.push(JSON.stringify((await sql`select * from ${sql.table(name)}`.execute(db)).rows));
  return texts.join('\n');
}
