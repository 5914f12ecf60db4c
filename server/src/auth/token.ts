// Session tokens are 256 random bits handed to the client once; the database keeps only their
// SHA-256, so a leaked database cannot be replayed as sessions.
import { createHash, randomBytes } from 'node:crypto';

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function looksLikeToken(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}
