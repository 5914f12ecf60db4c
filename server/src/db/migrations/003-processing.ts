import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

export async function up(db: Kysely<unknown>, { id }: MigrationContext): Promise<void> {
  // One row per entry of an upload, in the order processing met them: (file_id, seq) is unique,
  // so a job that runs again after a crash cannot record an entry twice.
  await db.schema
    .createTable('file_entries')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('file_id', 'integer', (c) => c.notNull().references('project_files.id'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'varchar(64)')
    .addColumn('kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('storage_key', 'varchar(255)')
    .addColumn('sop_instance_uid', 'varchar(64)')
    .addColumn('sop_class_uid', 'varchar(64)')
    .addColumn('study_instance_uid', 'varchar(64)')
    .addColumn('series_instance_uid', 'varchar(64)')
    .addColumn('modality', 'varchar(16)')
    .addColumn('study_date', 'varchar(16)')
    .addColumn('study_description', 'text')
    .addColumn('series_description', 'text')
    .addColumn('transfer_syntax_uid', 'varchar(64)')
    .addColumn('rows', 'integer')
    .addColumn('columns', 'integer')
    .addColumn('number_of_frames', 'integer')
    .addUniqueConstraint('file_entries_file_seq_unique', ['file_id', 'seq'])
    .execute();
  await db.schema.createIndex('file_entries_study_idx').on('file_entries').columns(['file_id', 'study_instance_uid', 'series_instance_uid']).execute();

  // Durable jobs, claimed through the database by any number of workers (DESIGN §3, §7).
  await db.schema
    .createTable('jobs')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('name', 'varchar(64)', (c) => c.notNull())
    .addColumn('file_id', 'integer', (c) => c.notNull().references('project_files.id'))
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('run_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('locked_by', 'varchar(64)')
    .addColumn('lease_until', 'varchar(32)')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobs_claim_idx').on('jobs').columns(['status', 'run_at']).execute();
  await db.schema.createIndex('jobs_file_idx').on('jobs').column('file_id').execute();
}
