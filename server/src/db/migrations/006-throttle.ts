import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The throttle now counts per address, per (username, address) pair and per account with a
  // growing delay (server/src/auth/login-throttle.policy.ts). The old per-username counts mean
  // nothing to it and last at most one window, so they are dropped rather than converted.
  await sql`delete from login_throttle`.execute(db);
  await db.schema.alterTable('login_throttle').addColumn('last_failure_at', 'varchar(32)').execute();
  await db.schema.alterTable('login_throttle').addColumn('blocked_until', 'varchar(32)').execute();
}
