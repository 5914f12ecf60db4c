import type { Db } from '../db/database.js';
import type { Counter } from './login-throttle.policy.js';

const toIso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const fromIso = (iso: string | null) => (iso === null ? null : Date.parse(iso));

export class LoginThrottleRepository {
  constructor(
    private readonly db: Db,
    /** The throttle's clock: a new counter's window starts at the time its decision reads. */
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Reads the counters of `keys` with their rows locked, lets `decide` answer the counters to
   * write (or none), writes them and commits: the decision and the count are one step, on
   * SQLite (one writer at a time) as on PostgreSQL (row locks held until commit). Callers pass
   * keys in one fixed order, so two attempts never wait on each other's rows in a cycle.
   */
  async update<T>(
    keys: string[],
    decide: (counters: Counter[]) => { result: T; write?: Counter[] },
  ): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      const counters: Counter[] = [];
      for (const key of keys) {
        // An upsert that changes nothing still locks the row (and creates it when missing), and
        // on PostgreSQL it answers the latest committed values even after waiting for a lock.
        const row = await trx
          .insertInto('login_throttle')
          .values({ key, failures: 0, window_started_at: new Date(this.now()).toISOString(), last_failure_at: null, blocked_until: null })
          .onConflict((oc) => oc.column('key').doUpdateSet((eb) => ({ failures: eb.ref('login_throttle.failures') })))
          .returningAll()
          .executeTakeFirstOrThrow();
        counters.push({
          failures: row.failures,
          windowStartedAt: Date.parse(row.window_started_at),
          lastFailureAt: fromIso(row.last_failure_at),
          blockedUntil: fromIso(row.blocked_until),
        });
      }
      const { result, write } = decide(counters);
      for (const [i, counter] of (write ?? []).entries()) {
        await trx
          .updateTable('login_throttle')
          .set({
            failures: counter.failures,
            window_started_at: toIso(counter.windowStartedAt)!,
            last_failure_at: toIso(counter.lastFailureAt),
            blocked_until: toIso(counter.blockedUntil),
          })
          .where('key', '=', keys[i]!)
          .execute();
      }
      return result;
    });
  }

  /** Gives back one counted failure (the attempt turned out right), never below zero. */
  async release(key: string): Promise<void> {
    await this.db
      .updateTable('login_throttle')
      .set((eb) => ({ failures: eb.case().when('failures', '>', 0).then(eb('failures', '-', 1)).else(0).end() }))
      .where('key', '=', key)
      .execute();
  }

  async clear(keys: string[]): Promise<void> {
    await this.db.deleteFrom('login_throttle').where('key', 'in', keys).execute();
  }

  /**
   * Forgets counters with nothing newer than `before` (ms since the epoch): a counter whose every
   * time lies a whole window back reads as a fresh one to every rule, so deleting it changes no
   * decision, and the table stays as small as the traffic of one window, however many addresses
   * and usernames an attacker sprays. Returns how many were removed.
   */
  async sweep(before: number): Promise<number> {
    // Times are stored as toISOString() text (one fixed width, UTC), which orders as the instants do.
    const cutoff = new Date(before).toISOString();
    const result = await this.db
      .deleteFrom('login_throttle')
      .where('window_started_at', '<', cutoff)
      .where((eb) => eb.or([eb('last_failure_at', 'is', null), eb('last_failure_at', '<', cutoff)]))
      .where((eb) => eb.or([eb('blocked_until', 'is', null), eb('blocked_until', '<', cutoff)]))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
