import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The shared tus store (TUS_STORE=shared, tus/tus-shared-store.ts) keeps an upload's bytes as
  // chunk objects in storage, and here what every API node asks: how many bytes are stored, and
  // which chunk objects hold them. The offset moves only by compare-and-set from where a chunk
  // started, in the transaction that records the chunk, so a chunk written without the upload's
  // lock can never be counted twice or in place of another. Both go with their upload.
  await db.schema
    .createTable('tus_offsets')
    .addColumn('upload_id', 'varchar(64)', (c) => c.primaryKey().references('tus_uploads.id').onDelete('cascade'))
    .addColumn('received', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('tus_chunks')
    .addColumn('upload_id', 'varchar(64)', (c) => c.notNull().references('tus_uploads.id').onDelete('cascade'))
    .addColumn('start', 'bigint', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    // The storage key of the chunk object (tus/<upload id>/<start>.<attempt>).
    .addColumn('object_key', 'varchar(255)', (c) => c.notNull())
    .addPrimaryKeyConstraint('tus_chunks_pk', ['upload_id', 'start'])
    .execute();
}
