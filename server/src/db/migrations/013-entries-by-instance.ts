import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // An upload's summary says how many of its instances the project already held (issue 14):
  // one lookup per instance by its SOP Instance UID, whatever the project's size.
  await db.schema.createIndex('file_entries_sop_idx').on('file_entries').column('sop_instance_uid').execute();
}
