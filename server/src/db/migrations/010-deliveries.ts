import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

export async function up(db: Kysely<unknown>, { id }: MigrationContext): Promise<void> {
  // A folder sent as one unit (DESIGN §10): open while its files arrive by tus, then completed,
  // when it becomes one row of project_files (file_id) processed by one job.
  await db.schema
    .createTable('deliveries')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('created_by', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    .addColumn('file_id', 'integer', (c) => c.references('project_files.id'))
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    // While open: removed with everything in it after this (renewed by every file that arrives).
    .addColumn('expires_at', 'varchar(32)')
    .execute();
  await db.schema.createIndex('deliveries_state_idx').on('deliveries').columns(['state', 'expires_at']).execute();
  await db.schema.createIndex('deliveries_file_idx').on('deliveries').column('file_id').execute();

  // The files of a delivery that arrived whole, each its own stored object, by their path inside
  // the folder: unique, so no two files of a delivery can land on the same path.
  await db.schema
    .createTable('delivery_files')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('delivery_id', 'integer', (c) => c.notNull().references('deliveries.id'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('relative_path', 'varchar(1024)', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'varchar(64)', (c) => c.notNull())
    .addColumn('storage_key', 'varchar(255)', (c) => c.notNull().unique())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addUniqueConstraint('delivery_files_path_unique', ['delivery_id', 'relative_path'])
    .execute();

  // A resumable upload may belong to a delivery, at a path no other upload of it may take.
  await db.schema.alterTable('tus_uploads').addColumn('delivery_id', 'integer').execute();
  await db.schema.alterTable('tus_uploads').addColumn('relative_path', 'varchar(1024)').execute();
  await db.schema.createIndex('tus_uploads_delivery_path_idx').on('tus_uploads').columns(['delivery_id', 'relative_path']).unique().execute();
}
