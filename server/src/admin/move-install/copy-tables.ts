// Copies every row with its own id, in pages, into the target. A row already there (an earlier
// run) must hold the same values; a different one means the target is another install.
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { MoveError } from './move-error.js';
import type { Progress } from './progress.js';
import { differingColumn, keyText, type Row } from './rows.js';
import { COPIED_TABLES, type CopiedTable } from './tables.js';

/** Rows per read and per insert: well under PostgreSQL's 65,535 parameters for the widest table. */
const PAGE_ROWS = 500;

export interface TableCount {
  table: string;
  rows: number;
  copied: number;
}

/** Kysely's typed builder cannot name a table chosen at run time; these few statements are plain SQL. */
async function page(db: Db, table: CopiedTable, after: unknown): Promise<Row[]> {
  const where = after === undefined ? sql`` : sql`where ${sql.ref(table.key)} > ${after}`;
  const result = await sql<Row>`select * from ${sql.table(table.name)} ${where} order by ${sql.ref(table.key)} limit ${PAGE_ROWS}`.execute(db);
  return result.rows;
}

async function existing(db: Db, table: CopiedTable, keys: unknown[]): Promise<Map<string, Row>> {
  const result = await sql<Row>`select * from ${sql.table(table.name)} where ${sql.ref(table.key)} in (${sql.join(keys)})`.execute(db);
  return new Map(result.rows.map((row) => [keyText(row, table.key), row]));
}

async function insert(db: Db, table: CopiedTable, rows: Row[]): Promise<void> {
  const columns = Object.keys(rows[0]!);
  const values = rows.map((row) => sql`(${sql.join(columns.map((c) => row[c]))})`);
  await sql`insert into ${sql.table(table.name)} (${sql.join(columns.map((c) => sql.ref(c)))}) values ${sql.join(values)}`.execute(db);
}

/**
 * audit_head as the target's migrations made it (the genesis, no audit row appended yet): the one
 * row every migrated database already holds, replaced by the old install's.
 */
function isGenesisHead(row: Row): boolean {
  return Number(row.last_seq) === 0 && Number(row.anchor_seq) === 0;
}

async function replaceHead(db: Db, row: Row): Promise<void> {
  await sql`update audit_head set last_seq = ${row.last_seq}, last_hash = ${row.last_hash}, anchor_seq = ${row.anchor_seq}, anchor_hash = ${row.anchor_hash} where id = ${row.id}`.execute(db);
}

function otherInstall(table: string, key: string, column: string): MoveError {
  return new MoveError(
    `The target database holds a different install: row ${key} of ${table} differs in ${column}. Move into an empty PostgreSQL database (or the one an interrupted move of this same install left), and do not start a server on it before the move has finished.`,
  );
}

export async function copyTable(source: Db, target: Db, table: CopiedTable, progress: Progress): Promise<TableCount> {
  const count: TableCount = { table: table.name, rows: 0, copied: 0 };
  let after: unknown;
  for (;;) {
    const rows = await page(source, table, after);
    if (rows.length === 0) break;
    after = rows.at(-1)![table.key];
    const there = await existing(target, table, rows.map((r) => r[table.key]));
    const missing: Row[] = [];
    for (const row of rows) {
      const found = there.get(keyText(row, table.key));
      if (found === undefined) {
        missing.push(row);
        continue;
      }
      const column = differingColumn(row, found);
      if (column === null) continue;
      if (table.name === 'audit_head' && isGenesisHead(found)) await replaceHead(target, row);
      else throw otherInstall(table.name, keyText(row, table.key), column);
      count.copied += 1;
    }
    if (missing.length > 0) await insert(target, table, missing);
    count.rows += rows.length;
    count.copied += missing.length;
    progress.rows(table.name, count.rows);
  }
  progress.rows(table.name, count.rows, true);
  const total = await countRows(target, table.name);
  if (total !== count.rows) {
    throw new MoveError(
      `The target database holds ${total} rows in ${table.name} where the old install has ${count.rows}: it holds a different install, or a server was started on it during the move. Move into an empty PostgreSQL database.`,
    );
  }
  return count;
}

export async function countRows(db: Db, table: string): Promise<number> {
  const result = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(db);
  return Number(result.rows[0]!.n);
}

/** Rows came with their ids: each sequence must continue after the largest, or the next insert collides. */
export async function fixSequences(target: Db): Promise<void> {
  for (const table of COPIED_TABLES.filter((t) => t.serial)) {
    await sql`select setval(pg_get_serial_sequence(${table.name}, ${table.key}), (select coalesce(max(${sql.ref(table.key)}), 0) + 1 from ${sql.table(table.name)}), false)`.execute(target);
  }
}

/**
 * Before anything is written: a target that holds more rows than the old install in any table,
 * or other accounts, is not this install.
 */
export async function checkTargetIsThisInstall(source: Db, target: Db): Promise<void> {
  for (const table of COPIED_TABLES) {
    const there = await countRows(target, table.name);
    if (there > (await countRows(source, table.name))) {
      throw new MoveError(
        `The target database holds a different install: it has more rows in ${table.name} than the install being moved. Move into an empty PostgreSQL database.`,
      );
    }
  }
  for (const table of COPIED_TABLES.filter((t) => t.name === 'companies' || t.name === 'users')) {
    let after: unknown;
    for (;;) {
      const rows = await page(target, table, after);
      if (rows.length === 0) break;
      after = rows.at(-1)![table.key];
      const own = await existing(source, table, rows.map((r) => r[table.key]));
      for (const row of rows) {
        const mine = own.get(keyText(row, table.key));
        const column = mine === undefined ? table.key : differingColumn(mine, row);
        if (column !== null) throw otherInstall(table.name, keyText(row, table.key), column);
      }
    }
  }
}
