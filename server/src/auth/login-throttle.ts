// Guards every check of a password (sign-in, and the current password of a password change) with
// counters in the database, so the limits hold across restarts and across API nodes. The rules
// are in login-throttle.policy.ts.
import { AppError } from '../errors/app-error.js';
import type { LoginThrottleRepository } from './login-throttle.repository.js';
import {
  counted,
  counterKeys,
  current,
  retryAfterSeconds,
  tooManyAttemptsMessage,
  waitMs,
  type Counter,
  type CounterKind,
  type ThrottleLimits,
} from './login-throttle.policy.js';

export type { ThrottleLimits } from './login-throttle.policy.js';

/** An admitted attempt, already counted as a failure; `succeeded` gives it back. */
export interface PasswordAttempt {
  keys: Record<CounterKind, string>;
}

// The order rows are locked in: an attempt shares at most its address (first) and its account (last)
// with another, so two attempts never wait on each other in a cycle.
const KINDS: CounterKind[] = ['address', 'pair', 'share', 'account'];

export class LoginThrottle {
  constructor(
    private readonly repo: LoginThrottleRepository,
    private readonly limits: ThrottleLimits,
    /** The throttle's only clock, so tests can hold time still while a burst is decided. */
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Admits one attempt at `username`'s password from `address` and counts it, in one atomic
   * step, or throws 429 with Retry-After. A refused attempt is not counted, so hammering a
   * closed door neither lengthens the wait nor reaches other counters.
   */
  async admit(username: string, address: string): Promise<PasswordAttempt> {
    const keys = counterKeys(username, address);
    const wait = await this.repo.update(
      KINDS.map((kind) => keys[kind]),
      (rows) => {
        // The time is read once the rows are locked: an attempt that waited for the lock must not
        // measure its wait from before the attempt it waited for.
        const now = this.now();
        const counters = Object.fromEntries(KINDS.map((kind, i) => [kind, current(kind, rows[i], now, this.limits)])) as Record<CounterKind, Counter>;
        const longest = Math.max(...KINDS.map((kind) => waitMs(kind, counters[kind], now, this.limits)));
        if (longest > 0) return { result: longest };
        const next = counted(counters, now, this.limits);
        return { result: 0, write: KINDS.map((kind) => next[kind]) };
      },
    );
    if (wait > 0) {
      throw new AppError(429, tooManyAttemptsMessage(wait), { 'retry-after': String(retryAfterSeconds(wait)) });
    }
    return { keys };
  }

  /**
   * The password was right: the pair, its share and the account start over (the owner is back), and
   * the address gets its attempt back so that many people signing in behind one NAT are not throttled.
   */
  async succeeded(attempt: PasswordAttempt): Promise<void> {
    await this.repo.clear([attempt.keys.pair, attempt.keys.share, attempt.keys.account]);
    await this.repo.release(attempt.keys.address);
  }

  /**
   * The password was right but a second factor is still due: only the address gets its attempt
   * back. The pair, share and account keep counting until the second step succeeds; clearing them
   * here would let someone holding the password guess codes for ever, a password step between tries.
   */
  async passwordRight(attempt: PasswordAttempt): Promise<void> {
    await this.repo.release(attempt.keys.address);
  }
}
