import { describe, expect, it } from 'vitest';
import {
  accountDelayMs,
  addressGroup,
  counted,
  counterKeys,
  current,
  shareCap,
  tooManyAttemptsMessage,
  waitMs,
  type Counter,
  type CounterKind,
  type ThrottleLimits,
} from './login-throttle.policy.js';

const limits: ThrottleLimits = {
  maxPerIp: 30,
  maxPerPair: 5,
  maxPerUser: 10,
  windowMs: 900_000,
  delayBaseMs: 5_000,
  delayMaxMs: 300_000,
};

describe('password throttle rules', () => {
  it('counts the addresses of one IPv6 /64 as one, and an IPv4-mapped address as its IPv4 one', () => {
    expect(addressGroup('203.0.113.7')).toBe('203.0.113.7');
    expect(addressGroup('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressGroup('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(addressGroup('2001:0db8:0001:0002:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(addressGroup('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressGroup('::1')).toBe('0:0:0:0::/64');
    expect(addressGroup('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });

  it('keys a username case-insensitively and keeps pairs of different addresses apart', () => {
    const a = counterKeys('Ada', '10.0.0.1');
    expect(a).toEqual(counterKeys('ada', '10.0.0.1'));
    expect(a.pair).not.toBe(counterKeys('ada', '10.0.0.2').pair);
    expect(a.account).toBe(counterKeys('ada', '10.0.0.2').account);
  });

  it('doubles the account delay from the base and stops at the cap', () => {
    expect([0, 1, 2, 3, 5, 6, 7, 1000].map((n) => accountDelayMs(n, limits) / 1000)).toEqual([
      5, 10, 20, 40, 160, 300, 300, 300,
    ]);
  });

  const KINDS: CounterKind[] = ['address', 'pair', 'share', 'account'];
  /** One admitted attempt, or the wait that refuses it, as the throttle decides them at `now`. */
  function attempt(stored: Partial<Record<CounterKind, Counter>>, now: number) {
    const counters = Object.fromEntries(KINDS.map((k) => [k, current(k, stored[k], now, limits)])) as Record<CounterKind, Counter>;
    const wait = Math.max(...KINDS.map((k) => waitMs(k, counters[k], now, limits)));
    return wait > 0 ? { wait, stored } : { wait: 0, stored: counted(counters, now, limits) };
  }

  it('makes the account wait only once its threshold is reached, counted from several addresses', () => {
    let account: Counter | undefined;
    for (let i = 1; i < limits.maxPerUser; i += 1) {
      account = attempt({ account }, i).stored.account;
    }
    expect(attempt({ account }, limits.maxPerUser).wait).toBe(0);
    account = attempt({ account }, 1_000).stored.account!;
    expect(waitMs('account', account, 1_000, limits)).toBe(5_000);
    expect(waitMs('account', account, 6_000, limits)).toBe(0);
  });

  it('never lets one address bring the account to its threshold, failing each time it may over many windows', () => {
    expect(shareCap(limits)).toBe(5);
    expect(shareCap({ ...limits, maxPerPair: 20 })).toBe(9);
    expect(shareCap({ ...limits, maxPerUser: 1 })).toBe(1);
    let stored: Partial<Record<CounterKind, Counter>> = {};
    let now = 0;
    for (let tries = 0; tries < 200; tries += 1) {
      const next = attempt(stored, now);
      stored = next.stored;
      expect(waitMs('account', current('account', stored.account, now, limits), now, limits)).toBe(0);
      expect(current('account', stored.account, now, limits).failures).toBeLessThan(limits.maxPerUser);
      now += next.wait > 0 ? next.wait : 1_000;
    }
    expect(now).toBeGreaterThan(10 * limits.windowMs);
    // Two more addresses still count, so guessing from them meets the delay.
    let account = stored.account;
    for (const _address of ['second', 'third']) {
      let share: Counter | undefined;
      for (let i = 0; i < 5; i += 1) ({ account, share } = attempt({ account, share }, now).stored);
    }
    expect(waitMs('account', account!, now, limits)).toBe(5_000);
  });

  it('forgets an account only after a quiet window, and an address or pair when its window ends', () => {
    const account = { failures: 12, windowStartedAt: 0, lastFailureAt: 800_000, blockedUntil: 820_000 };
    expect(current('account', account, 1_000_000, limits)).toBe(account);
    expect(current('account', account, 1_720_000, limits).failures).toBe(0);
    const pair = { failures: 5, windowStartedAt: 0, lastFailureAt: null, blockedUntil: null };
    expect(waitMs('pair', current('pair', pair, 899_000, limits), 899_000, limits)).toBe(1_000);
    expect(waitMs('pair', current('pair', pair, 900_000, limits), 900_000, limits)).toBe(0);
  });

  it('says how long to wait in whole minutes, rounded up, at least one', () => {
    expect(tooManyAttemptsMessage(5_000)).toBe('Too many failed login attempts. Try again in 1 minute.');
    expect(tooManyAttemptsMessage(60_001)).toBe('Too many failed login attempts. Try again in 2 minutes.');
    expect(tooManyAttemptsMessage(900_000)).toBe('Too many failed login attempts. Try again in 15 minutes.');
  });
});
