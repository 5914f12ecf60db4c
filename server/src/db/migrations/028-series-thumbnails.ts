import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

// One rendered thumbnail per series of a processed file (issue 34, item 3): the object in the
// project's storage with its ETag and size, or, when none could be drawn, the reason in words (a
// series without pixel data, a compression the renderer lacks, a renderer that crashed). One row
// per file and series: the same series in two uploads has two, and the live one is served.
export async function up(db: Kysely<unknown>, { id }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('series_thumbnails')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('company_id', 'integer', (c) => c.notNull())
    .addColumn('project_id', 'integer', (c) => c.notNull())
    .addColumn('file_id', 'integer', (c) => c.notNull().references('project_files.id'))
    .addColumn('study_instance_uid', 'varchar(64)', (c) => c.notNull())
    .addColumn('series_instance_uid', 'varchar(64)', (c) => c.notNull())
    .addColumn('storage_key', 'text')
    .addColumn('content_type', 'varchar(32)')
    .addColumn('etag', 'varchar(80)')
    .addColumn('size', 'integer')
    .addColumn('reason', 'text')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await sql`create unique index series_thumbnails_file_series_idx on series_thumbnails (file_id, series_instance_uid)`.execute(db);
  await sql`create index series_thumbnails_project_series_idx on series_thumbnails (project_id, study_instance_uid, series_instance_uid)`.execute(db);
}
