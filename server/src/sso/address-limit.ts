// The sign-in look-up and the redirect to a provider answer anyone: one address may ask only so
// often per window, counted in the throttle's table so the limit holds across API nodes.
import { addressGroup, retryAfterSeconds, type LoginThrottleRepository } from '../auth/index.js';
import { AppError } from '../errors/app-error.js';

export interface AddressLimits {
  maxPerAddress: number;
  windowMs: number;
}

export class AddressLimit {
  constructor(
    private readonly repo: LoginThrottleRepository,
    private readonly limits: AddressLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one request of `what` from `address`, or throws 429 with Retry-After past the limit. */
  async admit(what: 'sso-discover' | 'sso-start', address: string): Promise<void> {
    const key = `${what}:${addressGroup(address)}`;
    const wait = await this.repo.update([key], ([counter]) => {
      const now = this.now();
      const fresh = !counter || now - counter.windowStartedAt >= this.limits.windowMs;
      const current = fresh ? { failures: 0, windowStartedAt: now, lastFailureAt: null, blockedUntil: null } : counter;
      if (current.failures >= this.limits.maxPerAddress) return { result: current.windowStartedAt + this.limits.windowMs - now };
      return { result: 0, write: [{ ...current, failures: current.failures + 1, lastFailureAt: now }] };
    });
    if (wait > 0) {
      const minutes = Math.max(1, Math.ceil(wait / 60_000));
      throw new AppError(429, `Too many sign-in requests from this address. Try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`, {
        'retry-after': String(retryAfterSeconds(wait)),
      });
    }
  }
}
