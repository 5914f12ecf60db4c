import { sql, type Kysely } from 'kysely';

// Claiming takes turns between groups of jobs (issue 12): each job names whose work it is, and
// remembers when it was last claimed, so the group served least recently can go first.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('fair_key', 'varchar(128)', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('jobs').addColumn('started_at', 'varchar(32)').execute();
  // Uploads queued before this version carry only their file: their company comes from its row,
  // into the payload the kind now expects and into the group it now claims by.
  await sql`UPDATE jobs SET
      payload = (SELECT '{"fileId":' || f.id || ',"companyId":' || f.company_id || '}' FROM project_files f WHERE 'files/' || f.id = jobs.subject),
      fair_key = (SELECT 'companies/' || f.company_id FROM project_files f WHERE 'files/' || f.id = jobs.subject)
    WHERE name = 'process-upload' AND EXISTS (SELECT 1 FROM project_files f WHERE 'files/' || f.id = jobs.subject)`.execute(db);
  await db.schema.createIndex('jobs_fair_idx').on('jobs').columns(['name', 'fair_key', 'status']).execute();
  await db.schema.createIndex('jobs_fair_started_idx').on('jobs').columns(['name', 'fair_key', 'started_at']).execute();
}
