import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // How many bytes of a resumable upload are stored, for the shared tus store (TUS_STORE=shared,
  // files/tus-shared-store.ts): the bytes are chunk objects in storage, and this row is what every
  // API node asks for the offset. It moves only by compare-and-set from the offset a chunk started
  // at, so a chunk written without the upload's lock cannot be counted twice. Removed with its upload.
  await db.schema
    .createTable('tus_offsets')
    .addColumn('upload_id', 'varchar(64)', (c) => c.primaryKey().references('tus_uploads.id').onDelete('cascade'))
    .addColumn('received', 'bigint', (c) => c.notNull())
    .execute();
}
