// `npm run admin -- move-install --from OLD_DATA_DIR`: moves a single-machine install (SQLite and
// files under its DATA_DIR) to the database and storage this command's own settings name, the
// settings the server will then run with. Objects first, verified; rows last, so a target is
// usable only once everything in it checked out. Re-running goes on where a run stopped.
import path from 'node:path';
import type { Config } from '../../config/config.js';
import { openDatabase } from '../../db/database.js';
import { migrateToLatest } from '../../db/migrate.js';
import { createStorage } from '../../storage/create-storage.js';
import { makeDataDirPrivate } from '../../storage/private-data-dir.js';
import type { Storage } from '../../storage/storage.js';
import { StorageUnavailableError } from '../../storage/storage-errors.js';
import { copyObjects, type CopyOptions } from './copy-objects.js';
import { checkTargetIsThisInstall, copyTable, countRows, fixSequences, type TableCount } from './copy-tables.js';
import { MoveError } from './move-error.js';
import { count, counted, formatBytes, Progress, type Print } from './progress.js';
import { openSource } from './source.js';
import { carrySsoKey } from './sso-key.js';
import { totals } from './stored-objects.js';
import { COPIED_TABLES, LEFT_TABLES, type TableName } from './tables.js';

export interface MoveOptions extends CopyOptions {
  from: string;
}

export async function moveInstall(config: Config, opts: MoveOptions, print: Print): Promise<string> {
  if (config.databaseUrl === undefined) {
    throw new MoveError('The target must be a PostgreSQL database: set DATABASE_URL (and the storage settings) as the server will run with them, then run the move again.');
  }
  const from = path.resolve(opts.from);
  if (path.resolve(config.dataDir) === from) {
    throw new MoveError('DATA_DIR names the install being moved: give the target its own DATA_DIR (the server keeps its work area there).');
  }
  print(`Moving the install in ${from}. The old server and its workers must stay stopped until the move has finished.`);
  const source = openSource(from);
  const target = openDatabase(config);
  try {
    print('Bringing the target database up to date…');
    await migrateToLatest(target);
    await checkTargetIsThisInstall(source.db, target.db);
    await makeDataDirPrivate(config.dataDir);
    const ssoKey = await carrySsoKey(source, config);
    const storage = await createStorage(config);
    await checkStorage(storage);
    await storage.sweepIncomplete();

    const expected = await totals(source.db);
    print(`Copying ${counted(expected.objects, 'stored object', 'stored objects')} (${formatBytes(expected.bytes)}) and checking each one's SHA-256…`);
    const progress = new Progress(print);
    const objects = await copyObjects(source, storage, expected, progress, opts);
    if (objects.mismatches.length > 0) {
      throw new MoveError(
        [
          `${counted(objects.mismatches.length, 'stored object of the old install is not as its database records it', 'stored objects of the old install are not as its database records them')}, so the database was not copied:`,
          ...objects.mismatches.map((m) => `  - ${m}`),
          'Put the damaged files back from a backup of the old install (or delete them in the portal, with the old server running), stop the old server again and run the move again.',
        ].join('\n'),
      );
    }
    await storage.flush();

    print('Copying the database…');
    const tables: TableCount[] = [];
    for (const table of COPIED_TABLES) tables.push(await copyTable(source.db, target.db, table, progress));
    await fixSequences(target.db);

    const left = await leftBehind(source.db);
    const rows = tables.reduce((n, t) => n + t.rows, 0);
    const copiedRows = tables.reduce((n, t) => n + t.copied, 0);
    return [
      `The install in ${from} was moved, and every object checked out.`,
      `  Database: ${counted(rows, 'row', 'rows')} in ${tables.length} tables (${rowsThisRun(rows, copiedRows)}).`,
      `  Objects: ${count(objects.objects)} (${formatBytes(objects.bytes)}): ${count(objects.copied)} copied in this run, ${count(objects.alreadyThere)} already there${
        objects.redone > 0 ? `, ${counted(objects.redone, 'half-copied one copied again', 'half-copied ones copied again')}` : ''
      }. Each one read back from the target with the SHA-256 the database records, as did ${counted(objects.entriesChecked, 'extracted entry', 'extracted entries')} stored inside them.`,
      ...left.map((l) => `  Not moved: ${l}.`),
      ...(ssoKey === null ? [] : [`  ${ssoKey}`]),
      'Start the server and workers with the same settings as this command. Keep the old DATA_DIR until you have checked the portal.',
    ].join('\n');
  } finally {
    await target.close();
    await source.close();
  }
}

/** A bucket that cannot be used stops the move before any object or row is copied, in the words start-up would use. */
async function checkStorage(storage: Storage): Promise<void> {
  try {
    await storage.checkAccess();
  } catch (error) {
    if (error instanceof StorageUnavailableError) throw new MoveError(`${error.message} Nothing was moved.`);
    throw error;
  }
}

function rowsThisRun(rows: number, copied: number): string {
  if (copied === rows) return 'all copied in this run';
  if (copied === 0) return 'all already there from an earlier run';
  return `${count(copied)} copied in this run, the rest already there from an earlier one`;
}

async function countUnfinishedUploads(db: Parameters<typeof countRows>[0]): Promise<number> {
  const row = await db.selectFrom('tus_uploads').select((eb) => eb.fn.countAll().as('n')).where('state', '<>', 'finished').executeTakeFirstOrThrow();
  return Number(row.n);
}

async function leftBehind(db: Parameters<typeof countRows>[0]): Promise<string[]> {
  const lines: string[] = [];
  for (const [table, what] of Object.entries(LEFT_TABLES) as [TableName, { one: string; many: string } | null][]) {
    if (what === null) continue;
    // A finished resumable upload's record (no bytes: they became a file) is nothing to start again.
    const n = table === 'tus_uploads' ? await countUnfinishedUploads(db) : await countRows(db, table);
    if (n > 0) lines.push(counted(n, what.one, what.many));
  }
  return lines;
}
