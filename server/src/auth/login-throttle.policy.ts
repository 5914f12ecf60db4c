// The rules of the password throttle, free of storage so they can be read and tested alone.
//
// Three counters guard every password check (a login, or the current password of a password change):
// - per client address, across usernames: one address cannot spray many accounts;
// - per (username, address) pair: one address cannot guess one account for long;
// - per account, across addresses: past a threshold every further attempt waits a delay that
//   doubles up to a cap. It slows distributed guessing without ever locking the owner out for
//   longer than the cap.
// A fourth, the address's share of the account's count, keeps one address from reaching the
// account's threshold alone: the pair's window is fixed while the account's count slides, so
// without it an address failing once each time its pair (then the delay) let it could keep the
// owner waiting for good. The share slides like the account but on every admitted attempt of its
// address, so it outlives whatever part of the account's count that address made.
// An attempt is counted as a failure when it is admitted, before the password is verified, so
// parallel attempts cannot all pass one check; a right password then clears its pair and account.
import { isIPv4, isIPv6 } from 'node:net';
import type { Config } from '../config/config.js';

/** The throttle's settings, as the configuration reads them (LOGIN_* variables). */
export type ThrottleLimits = Config['loginThrottle'];

export type CounterKind = 'address' | 'pair' | 'share' | 'account';

export interface Counter {
  failures: number;
  windowStartedAt: number;
  lastFailureAt: number | null;
  blockedUntil: number | null;
}

/** The counters one attempt touches, in the order their rows are locked (the same everywhere). */
export function counterKeys(username: string, address: string): Record<CounterKind, string> {
  const user = username.toLowerCase();
  const addr = addressGroup(address);
  // An address never holds a space, so the pair key cannot be forged from another pair.
  return { address: `address:${addr}`, pair: `pair:${addr} ${user}`, share: `share:${addr} ${user}`, account: `account:${user}` };
}

/**
 * IPv6 hands a single subscriber a whole /64, so counting each IPv6 address alone would let an
 * attacker rotate through fresh ones; an IPv4-mapped address is its IPv4 address.
 */
export function addressGroup(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const [head = '', tail = ''] = address.split('%')[0]!.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

/** A counter whose window has passed is forgotten. */
export function current(kind: CounterKind, counter: Counter | undefined, now: number, limits: ThrottleLimits): Counter {
  const fresh: Counter = { failures: 0, windowStartedAt: now, lastFailureAt: null, blockedUntil: null };
  if (!counter) return fresh;
  if (kind === 'account' || kind === 'share') {
    // The account's count slides: it is forgotten only after a quiet window, so a patient
    // attacker stays at the longest delay instead of starting over every window. A share slides
    // too, and outlives whatever part of the account's count its address made.
    const quietSince = Math.max(counter.lastFailureAt ?? 0, counter.blockedUntil ?? 0);
    return now >= quietSince + limits.windowMs ? fresh : counter;
  }
  return now >= counter.windowStartedAt + limits.windowMs ? fresh : counter;
}

/** Milliseconds this counter makes an attempt wait; 0 admits it. */
export function waitMs(kind: CounterKind, counter: Counter, now: number, limits: ThrottleLimits): number {
  if (kind === 'account') return Math.max(0, (counter.blockedUntil ?? 0) - now);
  if (kind === 'share') return 0;
  const max = kind === 'address' ? limits.maxPerIp : limits.maxPerPair;
  return counter.failures >= max ? Math.max(0, counter.windowStartedAt + limits.windowMs - now) : 0;
}

/**
 * The most failures one address adds to an account's count until it has been quiet a window:
 * below the account's threshold, so that one address alone never makes the owner wait (only a
 * threshold of 1 lets it, as any failure then does), and no more than the pair limit, which already
 * bounds one address within a window.
 */
export function shareCap(limits: ThrottleLimits): number {
  return Math.max(1, Math.min(limits.maxPerPair, limits.maxPerUser - 1));
}

/**
 * The counters after an admitted attempt, counted as a failure until it proves otherwise. The
 * account counts it only while the address's share is below its cap; the share remembers the
 * attempt either way, so an address that keeps failing keeps being left out of the account.
 */
export function counted(counters: Record<CounterKind, Counter>, now: number, limits: ThrottleLimits): Record<CounterKind, Counter> {
  const { address, pair, share, account } = counters;
  const charged = share.failures < shareCap(limits);
  return {
    address: { ...address, failures: address.failures + 1 },
    pair: { ...pair, failures: pair.failures + 1 },
    share: { ...share, failures: share.failures + (charged ? 1 : 0), lastFailureAt: now },
    account: charged ? countedOnAccount(account, now, limits) : account,
  };
}

function countedOnAccount(account: Counter, now: number, limits: ThrottleLimits): Counter {
  const failures = account.failures + 1;
  const beyond = failures - limits.maxPerUser;
  const blockedUntil = beyond >= 0 ? now + accountDelayMs(beyond, limits) : account.blockedUntil;
  return { ...account, failures, lastFailureAt: now, blockedUntil };
}

/** The wait after the account's (maxPerUser + n)-th failure: base × 2ⁿ, at most the cap. */
export function accountDelayMs(n: number, limits: ThrottleLimits): number {
  // Past 2^30 the product is far beyond any cap; stopping there keeps the number finite.
  return Math.min(limits.delayBaseMs * 2 ** Math.min(n, 30), limits.delayMaxMs);
}

/** Spec of issue 12: whole minutes, rounded up, at least one. */
export function tooManyAttemptsMessage(waitMs: number): string {
  const minutes = Math.max(1, Math.ceil(waitMs / 60_000));
  return `Too many failed login attempts. Try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`;
}

export function retryAfterSeconds(waitMs: number): number {
  return Math.max(1, Math.ceil(waitMs / 1000));
}
