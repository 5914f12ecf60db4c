// What both sides of two-factor sign-in (the sign-in's second step, and the account's settings)
// share: sealing a user's secret, checking a code against it once, and making recovery codes.
import type { UserRow } from '../db/schema.js';
import { nowIso } from '../db/database.js';
import type { SecretBox } from '../sso/index.js';
import { newRecoveryCodes, hashRecoveryCode } from './recovery-codes.js';
import type { TwoFactorRepository } from './two-factor.repository.js';
import { acceptedStep, newSecret, setupFor } from './totp.js';

/** The name an authenticator app lists the account under. */
const ISSUER = 'Secure Upload Portal';

export const WRONG_CODE = 'That code is not right. Enter the 6-digit code your authenticator app shows now (each code works once).';

export class Authenticators {
  constructor(
    readonly repo: TwoFactorRepository,
    private readonly box: SecretBox,
    /** Milliseconds since the epoch (tests hold it still and move it by whole steps). */
    readonly clock: () => number,
  ) {}

  nowIso(): string {
    return nowIso(new Date(this.clock()));
  }

  /** A fresh secret, sealed to its user (a copy moved to another user's row does not open), and what the app needs. */
  async newSetup(user: UserRow) {
    const secret = newSecret();
    return { sealed: this.seal(user.id, secret), setup: await setupFor(secret, ISSUER, user.username) };
  }

  seal(userId: number, secret: string): string {
    return this.box.sealBound(secret, binding(userId));
  }

  open(userId: number, sealed: string): string {
    return this.box.openBound(sealed, binding(userId));
  }

  /** The step a right code of `sealed` belongs to, or null (wrong, replayed, or out of the window). */
  stepOf(userId: number, sealed: string, code: string, lastUsedStep: number | null): Promise<number | null> {
    return acceptedStep(this.open(userId, sealed), code, lastUsedStep, this.clock());
  }

  /** Checks a code of the user's authenticator and spends its step: a code works once. */
  async useCode(userId: number, code: string): Promise<boolean> {
    const factor = await this.repo.find(userId);
    if (!factor?.confirmed_at) return false;
    const step = await this.stepOf(userId, factor.secret_sealed, code, factor.last_used_step);
    return step !== null && (await this.repo.useStep(userId, step));
  }

  /** Turns the authenticator on (its first code's step spent) with ten new recovery codes, answered once. */
  async enable(userId: number, sealed: string, step: number): Promise<string[]> {
    const codes = newRecoveryCodes();
    await this.repo.enable(userId, sealed, step, codes.map(hashRecoveryCode), this.nowIso());
    return codes;
  }

  async newRecoveryCodes(userId: number): Promise<string[]> {
    const codes = newRecoveryCodes();
    await this.repo.replaceRecoveryCodes(userId, codes.map(hashRecoveryCode), this.nowIso());
    return codes;
  }

  useRecoveryCode(userId: number, code: string): Promise<boolean> {
    return this.repo.useRecoveryCode(userId, hashRecoveryCode(code), this.nowIso());
  }
}

const binding = (userId: number) => `second-factor:${userId}`;
