import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

// Jobs carry a JSON payload checked by their kind's schema instead of a column shaped for one kind,
// and a subject ('files/12') by which deleting what they work on cancels them.
export async function up(db: Kysely<unknown>, { dialect, id }: MigrationContext): Promise<void> {
  if (dialect === 'postgres') {
    await db.schema.alterTable('jobs').addColumn('payload', 'text').addColumn('subject', 'varchar(128)').execute();
    await sql`UPDATE jobs SET payload = '{"fileId":' || file_id || '}', subject = 'files/' || file_id`.execute(db);
    await db.schema.alterTable('jobs').alterColumn('payload', (c) => c.setNotNull()).execute();
    await db.schema.dropIndex('jobs_file_idx').execute();
    await db.schema.alterTable('jobs').dropColumn('file_id').execute();
  } else {
    // SQLite cannot drop a column that is a foreign key: the table is rebuilt (SQLite's documented way).
    await db.schema
      .createTable('jobs_new')
      .addColumn('id', id, (c) => c.primaryKey())
      .addColumn('name', 'varchar(64)', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('subject', 'varchar(128)')
      .addColumn('status', 'varchar(16)', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('run_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('locked_by', 'varchar(64)')
      .addColumn('lease_until', 'varchar(32)')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
      .execute();
    await sql`INSERT INTO jobs_new (id, name, payload, subject, status, attempts, run_at, locked_by, lease_until, last_error, created_at, updated_at)
      SELECT id, name, '{"fileId":' || file_id || '}', 'files/' || file_id, status, attempts, run_at, locked_by, lease_until, last_error, created_at, updated_at
      FROM jobs`.execute(db);
    await db.schema.dropTable('jobs').execute();
    await db.schema.alterTable('jobs_new').renameTo('jobs').execute();
    await db.schema.createIndex('jobs_claim_idx').on('jobs').columns(['status', 'run_at']).execute();
  }
  await db.schema.createIndex('jobs_subject_idx').on('jobs').column('subject').execute();
}
