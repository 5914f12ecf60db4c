// One Kysely instance on SQLite (embedded default) or PostgreSQL (DATABASE_URL).
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';
import { runDirectlyOn, withStatementCache } from './statement-cache.js';

export type Dialect = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  dialect: Dialect;
  close(): Promise<void>;
}

export function sqliteFile(dataDir: string): string {
  return path.join(dataDir, 'portal.sqlite');
}

export function openDatabase(opts: { databaseUrl: string | undefined; dataDir: string }): DatabaseHandle {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, dialect: 'postgres', close: () => db.destroy() };
  }
  // The database holds password and token hashes: private to the service user whatever the umask.
  // SQLite gives its -wal and -shm files the database file's own mode.
  fs.mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  const dbFile = sqliteFile(opts.dataDir);
  fs.closeSync(fs.openSync(dbFile, 'a', 0o600));
  fs.chmodSync(dbFile, 0o600);
  const file = new SQLite(dbFile);
  // WAL lets readers proceed during a write; busy_timeout waits out a worker's short write lock.
  file.pragma('journal_mode = WAL');
  file.pragma('synchronous = NORMAL');
  file.pragma('foreign_keys = ON');
  file.pragma('busy_timeout = 5000');
  // A checkpoint copies the log's pages into the database and syncs both, in the thread that
  // commits. Every upload rewrites the same few index pages (jobs, files) several times: with the
  // default of 1,000 pages the server checkpointed every twenty small uploads, each copy mostly of
  // pages that a later one would copy again. 16,000 pages (64 MB of log at most) copy each once.
  file.pragma('wal_autocheckpoint = 16000');
  const statements = withStatementCache(file);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }) });
  runDirectlyOn(db, statements);
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

export async function ping(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}

export function nowIso(date: Date = new Date()): string {
  return date.toISOString();
}
