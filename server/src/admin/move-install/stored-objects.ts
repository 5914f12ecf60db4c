// Every stored object the database points to, with the size and SHA-256 it records, read in pages
// so that an install of millions of entries is never held in memory.
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';

export interface ExpectedObject {
  key: string;
  size: number;
  sha256: string;
  /** Who the object belongs to, in words, for the report. */
  label: string;
}

/** An extracted entry read in place: a range (or the whole) of an object listed above. */
export interface EntryCheck extends ExpectedObject {
  offset: number;
}

const PAGE_ROWS = 1000;

interface Paged {
  id: number | string;
}

async function* pages<R extends Paged>(read: (after: number) => Promise<R[]>): AsyncIterable<R> {
  let after = 0;
  for (;;) {
    const rows = await read(after);
    if (rows.length === 0) return;
    yield* rows;
    after = Number(rows.at(-1)!.id);
  }
}

const quoted = (name: string) => `“${name}”`;

/** Uploads' objects (a completed delivery's row points to no object of its own), then deliveries' files, entries and series thumbnails. */
export async function* ownedObjects(db: Db): AsyncIterable<ExpectedObject> {
  for await (const f of pages((after) =>
    db
      .selectFrom('project_files')
      .select(['id', 'file', 'filesize', 'sha256', 'storage_key', 'deleted_at'])
      .where('kind', '!=', 'folder')
      // A purged file's bytes are gone on purpose (files/purge.service.ts); its row is history.
      .where('purged_at', 'is', null)
      .where('id', '>', after)
      .orderBy('id')
      .limit(PAGE_ROWS)
      .execute(),
  )) {
    const deleted = f.deleted_at === null ? '' : ', deleted';
    yield { key: f.storage_key, size: Number(f.filesize), sha256: f.sha256, label: `file ${quoted(f.file)} (file ${f.id}${deleted})` };
  }
  for await (const m of pages((after) =>
    db
      .selectFrom('delivery_files')
      .innerJoin('deliveries', 'deliveries.id', 'delivery_files.delivery_id')
      .select(['delivery_files.id', 'delivery_files.relative_path', 'delivery_files.size', 'delivery_files.sha256', 'delivery_files.storage_key', 'deliveries.name'])
      // A file that came in a bundle is a range of the bundle's object, listed below and checked as an entry is.
      .where('delivery_files.storage_offset', 'is', null)
      .where('delivery_files.id', '>', after)
      .orderBy('delivery_files.id')
      .limit(PAGE_ROWS)
      .execute(),
  )) {
    yield { key: m.storage_key, size: Number(m.size), sha256: m.sha256, label: `${quoted(m.relative_path)} of the delivery ${quoted(m.name)}` };
  }
  // Read at once: a bundle holds up to 1,000 files, so an install has far fewer bundles than files.
  const bundles = await db
    .selectFrom('delivery_bundles')
    .innerJoin('deliveries', 'deliveries.id', 'delivery_bundles.delivery_id')
    .select(['delivery_bundles.storage_key', 'delivery_bundles.size', 'delivery_bundles.sha256', 'deliveries.name'])
    .orderBy('delivery_bundles.storage_key')
    .execute();
  for (const b of bundles) {
    yield { key: b.storage_key, size: Number(b.size), sha256: b.sha256, label: `a bundle of files of the delivery ${quoted(b.name)}` };
  }
  yield* entries(db, 'own');
  for await (const t of pages((after) =>
    db
      .selectFrom('series_thumbnails')
      .innerJoin('project_files', 'project_files.id', 'series_thumbnails.file_id')
      .select(['series_thumbnails.id', 'series_thumbnails.storage_key', 'series_thumbnails.size', 'series_thumbnails.sha256', 'project_files.file'])
      .where('series_thumbnails.storage_key', 'is not', null)
      .where('series_thumbnails.id', '>', after)
      .orderBy('series_thumbnails.id')
      .limit(PAGE_ROWS)
      .execute(),
  )) {
    yield { key: t.storage_key!, size: Number(t.size), sha256: t.sha256!, label: `a series thumbnail of the file ${quoted(t.file)}` };
  }
}

/** Entries that are ranges or the whole of an upload's or a delivery file's object, and a bundle's files (ranges of its object). */
export function entryChecks(db: Db): AsyncIterable<EntryCheck> {
  return entries(db, 'inside');
}

async function* entries(db: Db, which: 'own' | 'inside'): AsyncIterable<EntryCheck> {
  if (which === 'inside') {
    for await (const m of pages((after) =>
      db
        .selectFrom('delivery_files')
        .innerJoin('deliveries', 'deliveries.id', 'delivery_files.delivery_id')
        .select(['delivery_files.id', 'delivery_files.relative_path', 'delivery_files.size', 'delivery_files.sha256', 'delivery_files.storage_key', 'delivery_files.storage_offset', 'deliveries.name'])
        .where('delivery_files.storage_offset', 'is not', null)
        .where('delivery_files.id', '>', after)
        .orderBy('delivery_files.id')
        .limit(PAGE_ROWS)
        .execute(),
    )) {
      yield { key: m.storage_key, size: Number(m.size), sha256: m.sha256, offset: Number(m.storage_offset), label: `${quoted(m.relative_path)} of the delivery ${quoted(m.name)}` };
    }
  }
  // An entry owns its object when no upload or delivery file has that key.
  const other = sql<boolean>`(file_entries.storage_key in (select storage_key from project_files) or file_entries.storage_key in (select storage_key from delivery_files))`;
  for await (const e of pages((after) =>
    db
      .selectFrom('file_entries')
      .innerJoin('project_files', 'project_files.id', 'file_entries.file_id')
      .select(['file_entries.id', 'file_entries.path', 'file_entries.size', 'file_entries.sha256', 'file_entries.storage_key', 'file_entries.storage_offset', 'project_files.file'])
      .where('file_entries.storage_key', 'is not', null)
      .where('file_entries.sha256', 'is not', null)
      .where(which === 'own' ? sql<boolean>`not ${other}` : other)
      .where('file_entries.id', '>', after)
      .orderBy('file_entries.id')
      .limit(PAGE_ROWS)
      .execute(),
  )) {
    yield {
      key: e.storage_key!,
      size: Number(e.size),
      sha256: e.sha256!,
      offset: e.storage_offset === null ? 0 : Number(e.storage_offset),
      label: `entry ${quoted(e.path)} of the file ${quoted(e.file)}`,
    };
  }
}

export interface Totals {
  objects: number;
  bytes: number;
  entryChecks: number;
}

/** What the copy will go through, for its progress lines. */
export async function totals(db: Db): Promise<Totals> {
  let objects = 0;
  let bytes = 0;
  for await (const o of ownedObjects(db)) {
    objects += 1;
    bytes += o.size;
  }
  let checks = 0;
  for await (const _ of entryChecks(db)) checks += 1;
  return { objects, bytes, entryChecks: checks };
}
