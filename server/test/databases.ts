// Every data-layer and API test runs once per engine: SQLite always, PostgreSQL when the global
// setup found one (REQUIRE_POSTGRES=1 makes a missing one fail the run instead).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { sqliteFile, type Dialect } from '../src/db/database.js';

export interface TestDatabase {
  dialect: Dialect;
  dataDir: string;
  databaseUrl: string | undefined;
  drop(): Promise<void>;
}

export function dialects(): Dialect[] {
  // The S3 pass is about storage: one engine is enough, the one several nodes would share.
  if (process.env.TEST_STORAGE === 's3') return inject('postgresAdminUrl') ? ['postgres'] : ['sqlite'];
  return inject('postgresAdminUrl') ? ['sqlite', 'postgres'] : ['sqlite'];
}

async function adminQuery(sql: string): Promise<void> {
  const url = inject('postgresAdminUrl');
  if (!url) throw new Error('PostgreSQL is not available to this run');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * An empty database, or with `migrated` one at the latest migration: a copy of the one the global
 * setup migrated, for tests that would only run every migration first (a server, a repository).
 */
export async function createTestDatabase(dialect: Dialect, opts: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-test-'));
  const removeDir = () => fs.promises.rm(dataDir, { recursive: true, force: true });
  if (dialect === 'sqlite') {
    if (opts.migrated) fs.copyFileSync(inject('sqliteTemplate'), sqliteFile(dataDir));
    return { dialect, dataDir, databaseUrl: undefined, drop: removeDir };
  }

  const name = `portal_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(opts.migrated ? `create database ${name} template ${inject('postgresTemplate')!}` : `create database ${name}`);
  // A test's commits need not wait for the disk: nothing here survives a crash of PostgreSQL itself.
  await adminQuery(`alter database ${name} set synchronous_commit = off`);
  const url = new URL(inject('postgresAdminUrl')!);
  url.pathname = `/${name}`;
  return {
    dialect,
    dataDir,
    databaseUrl: url.toString(),
    drop: async () => {
      await dropWhenFree(name);
      await removeDir();
    },
  };
}

/**
 * Closed pools may still be saying goodbye to the server; forcing the drop at once would answer
 * their last packets with a FATAL error. Wait for them, and force only what lingers.
 */
async function dropWhenFree(name: string): Promise<void> {
  for (let attempt = 0; attempt < 30; attempt += 1) {
    try {
      await adminQuery(`drop database if exists ${name}`);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== '55006') throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await adminQuery(`drop database if exists ${name} with (force)`);
}
