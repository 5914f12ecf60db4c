import type { Db } from '../db/database.js';

export interface ThrottleState {
  failures: number;
  windowStartedAt: number;
}

export class LoginThrottleRepository {
  constructor(private readonly db: Db) {}

  async get(key: string): Promise<ThrottleState | undefined> {
    const row = await this.db.selectFrom('login_throttle').selectAll().where('key', '=', key).executeTakeFirst();
    return row && { failures: row.failures, windowStartedAt: Date.parse(row.window_started_at) };
  }

  /** Counts one failure atomically, starting a new window when the old one has passed. */
  async recordFailure(key: string, now: Date, windowMs: number): Promise<void> {
    const nowIso = now.toISOString();
    const windowStart = new Date(now.getTime() - windowMs).toISOString();
    await this.db
      .insertInto('login_throttle')
      .values({ key, failures: 1, window_started_at: nowIso })
      .onConflict((oc) =>
        oc.column('key').doUpdateSet((eb) => ({
          failures: eb
            .case()
            .when('login_throttle.window_started_at', '<', windowStart)
            .then(1)
            .else(eb('login_throttle.failures', '+', 1))
            .end(),
          window_started_at: eb
            .case()
            .when('login_throttle.window_started_at', '<', windowStart)
            .then(nowIso)
            .else(eb.ref('login_throttle.window_started_at'))
            .end(),
        })),
      )
      .execute();
  }

  async clear(key: string): Promise<void> {
    await this.db.deleteFrom('login_throttle').where('key', '=', key).execute();
  }
}
