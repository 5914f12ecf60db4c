import type { Kysely } from 'kysely';

// A project's de-identification policy (issue 33) and its key. The policy is three columns of the
// project, so a project is created with its policy in one insert and no project is ever without
// one: every project that exists now takes 'off', which keeps what is sent as it is, as before.
// deid_updated_at stays null until the policy is first set (it has held since the project's
// creation). The key lives in a table of its own: it is made at first use, not with the project,
// and only ever sealed (sso/secret-box.ts), so a project row read anywhere never carries it.
export async function up(db: Kysely<unknown>): Promise<void> {
  // SQLite adds one column per statement.
  await db.schema.alterTable('projects').addColumn('deid_profile', 'varchar(16)', (c) => c.notNull().defaultTo('off')).execute();
  await db.schema.alterTable('projects').addColumn('deid_options', 'varchar(512)', (c) => c.notNull().defaultTo('[]')).execute();
  await db.schema.alterTable('projects').addColumn('deid_updated_at', 'varchar(32)').execute();
  await db.schema
    .createTable('project_keys')
    .addColumn('project_id', 'integer', (c) => c.primaryKey().references('projects.id'))
    .addColumn('key_sealed', 'text', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();
}
