// The install being moved: its SQLite database, read under an exclusive lock so that no server or
// worker can have it open meanwhile, and its objects, read through the filesystem backend.
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { sqliteFile, type Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { migrationNames } from '../../db/migrate.js';
import { FsStorage } from '../../storage/fs-storage.js';
import type { Storage } from '../../storage/storage.js';
import { MoveError } from './move-error.js';
import { COPIED_TABLES, LEFT_TABLES, MIGRATOR_TABLES } from './tables.js';

export interface Source {
  dataDir: string;
  db: Db;
  storage: Storage;
  close(): Promise<void>;
}

const STOP_FIRST =
  'Stop the server and every worker of the old install first (for example `systemctl stop portal portal-worker`), then run the move again.';

export function openSource(dataDir: string): Source {
  const dir = path.resolve(dataDir);
  const file = sqliteFile(dir);
  if (!fs.existsSync(file)) {
    throw new MoveError(`There is no portal database in ${dir} (portal.sqlite is missing): --from must be the DATA_DIR of the install to move.`);
  }
  const sqlite = new SQLite(file, { fileMustExist: true });
  try {
    // Exclusive locking mode takes the database file's lock at the first read and keeps it until
    // close: a server or worker holding it open makes that read fail, and none can open it after.
    sqlite.pragma('locking_mode = EXCLUSIVE');
    sqlite.pragma('query_only = ON');
    sqlite.prepare('select count(*) from sqlite_master').get();
  } catch (error) {
    sqlite.close();
    if (isBusy(error)) throw new MoveError(`The install in ${dir} is in use: a server or worker has its database open. ${STOP_FIRST}`);
    throw error;
  }
  try {
    checkVersion(sqlite, dir);
    checkTables(sqlite);
  } catch (error) {
    sqlite.close();
    throw error;
  }
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  return { dataDir: dir, db, storage: new FsStorage(path.join(dir, 'objects')), close: () => db.destroy() };
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/** Rows are copied column for column, so both databases must be at the same version of the schema. */
function checkVersion(sqlite: SQLite.Database, dir: string): void {
  const known = migrationNames();
  const hasTable = sqlite.prepare("select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'").get();
  const done = hasTable ? (sqlite.prepare('select name from kysely_migration order by name').all() as { name: string }[]).map((r) => r.name) : [];
  const unknown = done.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new MoveError(`The install in ${dir} was last run by a newer version of the portal than this command: run the move with that version.`);
  }
  if (done.length < known.length) {
    throw new MoveError(
      `The install in ${dir} was last run by an older version of the portal. Start it once with this version so that it brings its database up to date, stop it, and run the move again.`,
    );
  }
}

/** A table this command does not know would be left behind silently: refuse instead. */
function checkTables(sqlite: SQLite.Database): void {
  const names = (sqlite.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'").all() as { name: string }[]).map((r) => r.name);
  const known = new Set<string>([...COPIED_TABLES.map((t) => t.name), ...Object.keys(LEFT_TABLES), ...MIGRATOR_TABLES]);
  const strange = names.filter((name) => !known.has(name));
  if (strange.length > 0) throw new MoveError(`The old database holds tables this command does not know (${strange.join(', ')}): nothing was moved.`);
}
