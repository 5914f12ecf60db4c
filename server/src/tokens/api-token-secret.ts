// A personal API token's secret: 256 random bits after a recognisable prefix (secret scanners and
// people spot `pup_…` in a leaked file). The database keeps only its SHA-256: the secret has all
// the entropy a slow hash would add, and every request checks one.
import { createHash, randomBytes } from 'node:crypto';
import { API_TOKEN_PREFIX } from '@portal/contract';

const SECRET_PATTERN = new RegExp(`^${API_TOKEN_PREFIX}[A-Za-z0-9_-]{43}$`);

export function newApiTokenSecret(): string {
  return API_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

export function hashApiTokenSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Whether a bearer claims to be an API token (then it never falls back to being a session). */
export function claimsApiToken(bearer: string): boolean {
  return bearer.startsWith(API_TOKEN_PREFIX);
}

export function wellFormedApiToken(bearer: string): boolean {
  return SECRET_PATTERN.test(bearer);
}
