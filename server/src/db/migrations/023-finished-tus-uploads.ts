import type { Kysely } from 'kysely';

// A finished upload keeps its record (state 'finished', without bytes) until it would have expired,
// naming the file it became: a client that lost the last answer asks where the upload stands (HEAD)
// and learns it is complete, instead of sending the whole file again as a new upload.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('tus_uploads').addColumn('file_id', 'integer').execute();
}
