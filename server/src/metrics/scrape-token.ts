// Who may read metrics: the METRICS_TOKEN bearer (a scraper), compared in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';

/** The token of an `Authorization: Bearer …` header, as the API's authentication reads it. */
export function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer ([^\s]+)$/i.exec(header ?? '')?.[1];
}

/**
 * Digests of equal length are compared, so neither the time taken nor an early exit on a length
 * mismatch tells a guesser how much of the token was right.
 */
export function isMetricsToken(presented: string, expected: string | undefined): boolean {
  if (expected === undefined) return false;
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}
