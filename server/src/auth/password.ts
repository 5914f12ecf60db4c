// Passwords are stored only as argon2id hashes (the library's default algorithm, OWASP parameters).
import { hash, verify } from '@node-rs/argon2';
import { passwordIsValid } from '@portal/contract';
import { unprocessable } from '../errors/app-error.js';

/** Memory in KiB and passes of argon2id; parallelism stays 1. */
export interface PasswordCost {
  memoryCost: number;
  timeCost: number;
}

/** OWASP's argon2id recommendation (19 MiB, two passes): what every portal hashes with. */
export const PRODUCTION_PASSWORD_COST: PasswordCost = { memoryCost: 19_456, timeCost: 2 };

/**
 * Hashes new passwords at one cost. Verifying reads the cost from the stored hash, so a hash made
 * at any cost verifies. Only tests choose another cost (createServices' options): at production
 * cost every account a test makes, and every sign-in, takes 25–45 ms of CPU.
 */
export class PasswordHasher {
  #decoy: Promise<string> | undefined;

  constructor(private readonly cost: PasswordCost = PRODUCTION_PASSWORD_COST) {}

  hash(password: string): Promise<string> {
    return hash(password, { ...this.cost, parallelism: 1 });
  }

  /**
   * A hash of a random secret, verified when the username is unknown, so that an unknown user and
   * a wrong password cost the same time and cannot be told apart.
   */
  decoy(): Promise<string> {
    this.#decoy ??= this.hash(crypto.randomUUID());
    return this.#decoy;
  }
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

