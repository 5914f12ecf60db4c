import type { Kysely } from 'kysely';
import type { MigrationContext } from '../migration-context.js';

// Two-factor sign-in (issue 37 item 3). A user's authenticator secret, only ever sealed
// (sso/secret-box.ts), with the last 30-second step a code was accepted for (a code is never taken
// twice); confirmed_at stays null while an enrolment waits for its first code. Recovery codes are
// kept as SHA-256 hashes, each used once. A challenge is one sign-in between the password and the
// second step (or a mandatory enrolment): only its hash is kept, it lives minutes and is used once.
// A company may require the second factor of its password users.
export async function up(db: Kysely<unknown>, { id }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('user_second_factors')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id'))
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('confirmed_at', 'varchar(32)')
    .addColumn('last_used_step', 'integer')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('second_factor_recovery_codes')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('code_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('used_at', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('second_factor_recovery_codes_user_idx').on('second_factor_recovery_codes').columns(['user_id', 'code_hash']).execute();

  await db.schema
    .createTable('second_factor_challenges')
    .addColumn('id', id, (c) => c.primaryKey())
    .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    // 'code' (the second step of a sign-in) or 'enrolment' (a mandatory enrolment at sign-in).
    .addColumn('purpose', 'varchar(16)', (c) => c.notNull())
    // A mandatory enrolment's new secret until its first code confirms it.
    .addColumn('secret_sealed', 'text')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('used_at', 'varchar(32)')
    .execute();
  await db.schema.createIndex('second_factor_challenges_expires_idx').on('second_factor_challenges').column('expires_at').execute();

  await db.schema
    .createTable('company_two_factor')
    .addColumn('company_id', 'integer', (c) => c.primaryKey().references('companies.id'))
    .addColumn('required', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .execute();
}
