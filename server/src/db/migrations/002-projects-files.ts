import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

export async function up(db: Kysely<unknown>, { id }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('projects')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('valid', 'integer', (c) => c.notNull())
    .addColumn('status', 'varchar(50)', (c) => c.notNull())
    .addColumn('created_by', 'integer', (c) => c.references('users.id'))
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('deleted_at', 'varchar(32)')
    .execute();
  await db.schema.createIndex('projects_company_idx').on('projects').columns(['company_id', 'deleted_at']).execute();

  await db.schema
    .createTable('project_files')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id'))
    // Copied from the project so every file query is scoped to a company without a join.
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('file', 'varchar(255)', (c) => c.notNull())
    .addColumn('filesize', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'varchar(64)', (c) => c.notNull())
    .addColumn('storage_key', 'varchar(255)', (c) => c.notNull().unique())
    .addColumn('kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('created_by', 'integer', (c) => c.references('users.id'))
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('deleted_at', 'varchar(32)')
    .addColumn('processing_status', 'varchar(16)', (c) => c.notNull())
    .addColumn('processing_error', 'text')
    .addColumn('processing_summary', 'text')
    .execute();
  await db.schema.createIndex('project_files_project_idx').on('project_files').columns(['project_id', 'deleted_at']).execute();

  // An upload in flight: recorded before its first byte is stored, removed when its file row is
  // committed. What is left here after a crash names bytes to sweep.
  await db.schema
    .createTable('pending_uploads')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('storage_key', 'varchar(255)', (c) => c.notNull().unique())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('lease_until', 'varchar(32)', (c) => c.notNull())
    .execute();
}
