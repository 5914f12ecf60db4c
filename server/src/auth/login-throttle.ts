// Failed logins are counted per username and per client address in the database, so the limit
// holds across restarts and across API nodes. Successful logins clear the username's count.
import { tooManyRequests } from '../errors/app-error.js';
import type { LoginThrottleRepository } from './login-throttle.repository.js';

export interface ThrottleLimits {
  maxPerUser: number;
  maxPerIp: number;
  windowMs: number;
}

export class LoginThrottle {
  constructor(
    private readonly repo: LoginThrottleRepository,
    private readonly limits: ThrottleLimits,
  ) {}

  private keys(username: string, ip: string) {
    return [
      { key: `user:${username.toLowerCase()}`, max: this.limits.maxPerUser },
      { key: `ip:${ip}`, max: this.limits.maxPerIp },
    ];
  }

  /** Throws 429 with Retry-After when either count is exhausted within its window. */
  async check(username: string, ip: string, now: Date): Promise<void> {
    let waitMs = 0;
    for (const { key, max } of this.keys(username, ip)) {
      const state = await this.repo.get(key);
      if (!state) continue;
      const windowEnds = state.windowStartedAt + this.limits.windowMs;
      if (state.failures >= max && windowEnds > now.getTime()) {
        waitMs = Math.max(waitMs, windowEnds - now.getTime());
      }
    }
    if (waitMs > 0) throw tooManyRequests(Math.ceil(waitMs / 1000));
  }

  async recordFailure(username: string, ip: string, now: Date): Promise<void> {
    for (const { key } of this.keys(username, ip)) {
      await this.repo.recordFailure(key, now, this.limits.windowMs);
    }
  }

  async recordSuccess(username: string): Promise<void> {
    await this.repo.clear(`user:${username.toLowerCase()}`);
  }
}
