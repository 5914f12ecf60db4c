// One-time recovery codes: ten at enrolment, shown once, kept only as SHA-256 hashes (each has
// 50 random bits, far beyond guessing under the sign-in throttle, so a slow hash adds nothing).
import { createHash, randomInt } from 'node:crypto';
import { RECOVERY_CODE_COUNT } from '@portal/contract';

// Without 0/o, 1/l/i: codes are copied from paper.
const ALPHABET = '23456789abcdefghjkmnpqrstuvwxyz';
const GROUP = 5;

export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = Array.from({ length: GROUP * 2 }, () => ALPHABET[randomInt(ALPHABET.length)]!).join('');
    return `${chars.slice(0, GROUP)}-${chars.slice(GROUP)}`;
  });
}

/** Case, spaces and dashes as typed do not matter. */
export function hashRecoveryCode(code: string): string {
  return createHash('sha256').update(code.toLowerCase().replace(/[\s-]/g, '')).digest('hex');
}
