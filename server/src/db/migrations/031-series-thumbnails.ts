import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

// Series thumbnails (issue 34, item 3): one row per series of each processed upload or delivery,
// rendered from the series' middle stored instance. 'ready' points to a stored picture (its key,
// type, SHA-256 as the ETag, size); 'failed' says why in words. A row belongs to its file: purging
// the file removes the row and its picture with the file's other objects (files/purge.repository.ts).
export async function up(db: Kysely<unknown>, { id }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('series_thumbnails')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('file_id', 'integer', (c) => c.notNull().references('project_files.id'))
    .addColumn('company_id', 'integer', (c) => c.notNull())
    .addColumn('project_id', 'integer', (c) => c.notNull())
    .addColumn('study_instance_uid', 'varchar(64)', (c) => c.notNull())
    .addColumn('series_instance_uid', 'varchar(64)', (c) => c.notNull())
    // The instance the picture was rendered from (null when the series has no picture to render).
    .addColumn('sop_instance_uid', 'varchar(64)')
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('reason', 'varchar(512)')
    .addColumn('storage_key', 'varchar(512)')
    .addColumn('mime', 'varchar(32)')
    .addColumn('sha256', 'varchar(64)')
    .addColumn('size', 'integer')
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('series_thumbnails_file_series_idx').on('series_thumbnails').columns(['file_id', 'series_instance_uid']).unique().execute();
  await db.schema.createIndex('series_thumbnails_project_series_idx').on('series_thumbnails').columns(['project_id', 'series_instance_uid']).execute();
}
