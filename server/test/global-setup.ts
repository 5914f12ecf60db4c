// Decides once per run whether the PostgreSQL pass can run, and says so plainly when it cannot.
// Bundles the entry points tests run as processes once, so each start loads JavaScript instead of
// transpiling every source through tsx (1–3 s a start on 2 shared cores).
// Migrates once per engine: every test database that asks for the latest schema is a copy of these
// (a copied SQLite file, CREATE DATABASE … TEMPLATE on PostgreSQL), which costs milliseconds where
// running every migration cost a second on PostgreSQL.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import type {} from 'vitest';
import { bundleServer } from '../scripts/bundle.js';
import { openDatabase, sqliteFile } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresAdminUrl: string | null;
    /** A database at the latest migration, for CREATE DATABASE … TEMPLATE; null without PostgreSQL. */
    postgresTemplate: string | null;
    /** A SQLite file at the latest migration, copied into a test's DATA_DIR. */
    sqliteTemplate: string;
    /** The server's entry points bundled from src/ for this run: main.js, worker.js, cli.js. */
    entryBundleDir: string;
  }
}

const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query(sql);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function reachable(url: string): Promise<string | null> {
  try {
    await adminQuery(url, 'select 1');
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

async function migratedSqlite(): Promise<{ file: string; remove: () => void }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-template-'));
  const handle = openDatabase({ dataDir, databaseUrl: undefined });
  try {
    await migrateToLatest(handle);
  } finally {
    // Closing checkpoints the write-ahead log into the file, so the file alone is the database.
    await handle.close();
  }
  return { file: sqliteFile(dataDir), remove: () => fs.rmSync(dataDir, { recursive: true, force: true }) };
}

/** A template may have no connection while it is copied: the migration's pool is closed before any test starts. */
async function migratedPostgres(adminUrl: string): Promise<{ name: string; drop: () => Promise<void> }> {
  const name = `portal_template_${process.pid}_${randomBytes(4).toString('hex')}`;
  await adminQuery(adminUrl, `create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const handle = openDatabase({ dataDir: os.tmpdir(), databaseUrl: url.toString() });
  try {
    await migrateToLatest(handle);
  } finally {
    await handle.close();
  }
  return { name, drop: () => adminQuery(adminUrl, `drop database if exists ${name} with (force)`) };
}

const SERVER_DIR = path.resolve(import.meta.dirname, '..');

/**
 * Beside src/ (two levels under the repository, as dist/ is), so the server finds web/dist and its
 * dependencies as the built one does; ignored by git.
 */
async function bundleEntries(): Promise<{ dir: string; remove: () => void }> {
  const parent = path.join(SERVER_DIR, '.test-entries');
  fs.mkdirSync(parent, { recursive: true });
  const dir = fs.mkdtempSync(path.join(parent, 'run-'));
  const entryPoints = ['src/main.ts', 'src/worker.ts', 'src/admin/cli.ts', 'src/ingest/extract/sevenzip/sevenzip-worker.ts', 'src/ingest/describe-worker.ts', 'src/thumbnails/thumbnail-process.ts'];
  await bundleServer({ absWorkingDir: SERVER_DIR, entryPoints, outdir: dir });
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cleanups: (() => void | Promise<void>)[] = [];
  const teardown = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  };
  const entries = await bundleEntries();
  cleanups.push(entries.remove);
  project.provide('entryBundleDir', entries.dir);
  const sqlite = await migratedSqlite();
  cleanups.push(sqlite.remove);
  project.provide('sqliteTemplate', sqlite.file);

  const url = process.env.TEST_POSTGRES_URL ?? DEFAULT_URL;
  const failure = await reachable(url);
  if (failure === null) {
    const template = await migratedPostgres(url);
    cleanups.push(template.drop);
    project.provide('postgresAdminUrl', url);
    project.provide('postgresTemplate', template.name);
    return teardown;
  }
  if (process.env.REQUIRE_POSTGRES === '1') {
    await teardown();
    throw new Error(`REQUIRE_POSTGRES=1 but PostgreSQL is not reachable at ${url}: ${failure}`);
  }
  console.warn(
    `\n*** PostgreSQL not reachable at ${url} (${failure}): SKIPPED the PostgreSQL pass; only SQLite was tested. ***\n`,
  );
  project.provide('postgresAdminUrl', null);
  project.provide('postgresTemplate', null);
  return teardown;
}
