// Passwords are stored only as argon2id hashes (the library's default algorithm, OWASP parameters).
import { hash, verify } from '@node-rs/argon2';
import { passwordIsValid } from '@portal/contract';
import { unprocessable } from '../errors/app-error.js';

const OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

export const WEAK_PASSWORD_MESSAGE = 'Password does not meet all requirements';

/** Spec §5, enforced on the server whatever the client checked. */
export function assertStrongPassword(password: string): void {
  if (!passwordIsValid(password)) throw unprocessable(WEAK_PASSWORD_MESSAGE);
}

/**
 * A hash of a random secret, verified when the username is unknown, so that an unknown user and
 * a wrong password cost the same time and cannot be told apart.
 */
let decoyHash: Promise<string> | undefined;
export function decoyPasswordHash(): Promise<string> {
  decoyHash ??= hashPassword(crypto.randomUUID());
  return decoyHash;
}
