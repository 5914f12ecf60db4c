import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A stored (uncompressed) member of a zip upload is not copied out: its row points into the
  // upload's own object, at this byte offset (null: the entry's object holds exactly its bytes).
  await db.schema.alterTable('file_entries').addColumn('storage_offset', 'bigint').execute();
}
