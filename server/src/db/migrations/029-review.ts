import { sql, type Kysely } from 'kysely';

// A delivery is reviewed (issue 35): each project's arrival rules, and each file's review beside its
// processing status. The rules are a JSON document of their own table, made when first set (a
// project without a row has the default rules, review/review-rules.ts). On a file row: the review
// state (null while processing), the reason of a rejection (a code of the short list and the
// reviewer's free text), the rules' outcomes as JSON, who decided and when, and the replacement
// links both ways (`replaces`: the rejected file this one answers; `replaced_by`: the one that
// answered it). A delivery and a resumable upload carry the file they replace until they become a
// file row. One index serves the reviewers' inbox across projects (by state, newest first).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('project_rules')
    .addColumn('project_id', 'integer', (c) => c.primaryKey().references('projects.id'))
    .addColumn('rules', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_by', 'integer')
    .execute();
  // SQLite adds one column per statement.
  const fileColumns: [string, 'varchar(20)' | 'varchar(32)' | 'text' | 'integer'][] = [
    ['review_state', 'varchar(20)'],
    ['review_reason', 'varchar(32)'],
    ['review_note', 'text'],
    ['review_rules', 'text'],
    ['reviewed_at', 'varchar(32)'],
    ['reviewed_by', 'integer'],
    ['replaces', 'integer'],
    ['replaced_by', 'integer'],
  ];
  for (const [column, type] of fileColumns) await db.schema.alterTable('project_files').addColumn(column, type).execute();
  await db.schema.alterTable('deliveries').addColumn('replaces', 'integer').execute();
  await db.schema.alterTable('tus_uploads').addColumn('replaces', 'integer').execute();
  // Partial: the inbox reads only files with a review state; a file being processed costs nothing.
  await sql`create index project_files_review_idx on project_files (review_state, id) where review_state is not null and deleted_at is null`.execute(db);
}
