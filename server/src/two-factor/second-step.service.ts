// Signing in with a second factor: after the right password, a short-lived single-use challenge
// names the sign-in; the second step answers it with a code of the user's authenticator or a
// recovery code, under the same throttle counters as the password. A user whose company requires
// the second factor and who has none sets it up on that challenge before any session exists.
import type { TLoginResponse, TLoginWithRecoveryCodes, TSecondFactorDue, TSecondStepRequest, TTwoFactorSetup } from '@portal/contract';
import type { AuditTrail } from '../audit/index.js';
import type { LoginThrottle, PasswordAttempt } from '../auth/index.js';
import { AppError, unauthorized, unprocessable } from '../errors/app-error.js';
import { hashToken, looksLikeToken, newToken } from '../auth/index.js';
import type { SecondFactorChallengeRow, UserRow } from '../db/schema.js';
import { nowIso } from '../db/database.js';
import type { UsersRepository } from '../users/index.js';
import { WRONG_CODE, type Authenticators } from './authenticators.js';
import type { ChallengePurpose } from './two-factor.repository.js';

export const CODE_DUE_MESSAGE = 'Enter the 6-digit code from your authenticator app';
export const ENROLMENT_DUE_MESSAGE = 'Your company requires two-factor sign-in: set it up with an authenticator app to continue';
export const EXPIRED_MESSAGE = 'This sign-in has expired. Enter your username and password again.';
const WRONG_RECOVERY_CODE = 'That recovery code is not right, or it was used already.';
const START_FIRST = 'Scan the QR code first: the code must come from the authenticator you are setting up.';

/** Long enough to fetch a phone; short enough that a challenge left on a screen soon stops working. */
const CODE_CHALLENGE_MS = 5 * 60_000;
/** Setting up an app (perhaps installing one first) takes longer. */
const ENROLMENT_CHALLENGE_MS = 15 * 60_000;

export interface SecondStepDeps {
  users: UsersRepository;
  throttle: LoginThrottle;
  audit: AuditTrail;
  /** The session a finished sign-in gets: the same as a password sign-in's (AuthService.startSession). */
  startSession: (user: UserRow) => Promise<TLoginResponse>;
}

export class SecondStepService {
  constructor(
    private readonly authenticators: Authenticators,
    private readonly deps: SecondStepDeps,
  ) {}

  /** After the right password: the challenge of the step still due, or null when none is (the spec's answer follows). */
  async due(user: UserRow): Promise<TSecondFactorDue | null> {
    const { repo } = this.authenticators;
    const factor = await repo.find(user.id);
    if (factor?.confirmed_at) return this.challenge(user, 'code');
    if (await repo.companyRequires(user.company_id)) return this.challenge(user, 'enrolment');
    return null;
  }

  async complete(body: TSecondStepRequest, ip: string): Promise<TLoginResponse> {
    const { challenge, user } = await this.live(body.challenge, 'code');
    const who = { id: user.id, name: user.username, companyId: user.company_id };
    const attempt = await this.admit(user, ip);
    let ok: boolean;
    if (body.code !== undefined) {
      ok = await this.authenticators.useCode(user.id, body.code);
    } else {
      ok = await this.authenticators.useRecoveryCode(user.id, body.recovery_code ?? '');
      if (ok) {
        const left = await this.authenticators.repo.recoveryCodesLeft(user.id);
        await this.deps.audit.record({ action: 'two_factor.recovery_code_used', companyId: user.company_id, actor: who, object: { type: 'user', id: user.id }, details: { codes_left: left } });
      }
    }
    if (!ok) {
      await this.deps.audit.record({ action: 'login.failure', companyId: user.company_id, actor: who, details: { known_username: true, reason: body.code !== undefined ? 'second_factor_code' : 'recovery_code' } });
      throw unprocessable(body.code !== undefined ? WRONG_CODE : WRONG_RECOVERY_CODE);
    }
    if (!(await this.authenticators.repo.useChallenge(challenge.id, this.authenticators.nowIso()))) throw unauthorized(EXPIRED_MESSAGE);
    await this.deps.throttle.succeeded(attempt);
    return this.deps.startSession(user);
  }

  /** A mandatory enrolment's secret and QR code (a new one at each call: the latest is the one confirmed). */
  async startEnrolment(token: string): Promise<TTwoFactorSetup> {
    const { challenge, user } = await this.live(token, 'enrolment');
    const { sealed, setup } = await this.authenticators.newSetup(user);
    await this.authenticators.repo.setChallengeSecret(challenge.id, sealed);
    return setup;
  }

  async confirmEnrolment(token: string, code: string): Promise<TLoginWithRecoveryCodes> {
    const { challenge, user } = await this.live(token, 'enrolment');
    if (!challenge.secret_sealed) throw unprocessable(START_FIRST);
    const step = await this.authenticators.stepOf(user.id, challenge.secret_sealed, code, null);
    if (step === null) throw unprocessable(WRONG_CODE);
    if (!(await this.authenticators.repo.useChallenge(challenge.id, this.authenticators.nowIso()))) throw unauthorized(EXPIRED_MESSAGE);
    const recoveryCodes = await this.authenticators.enable(user.id, challenge.secret_sealed, step);
    await this.deps.audit.record({
      action: 'two_factor.enabled',
      companyId: user.company_id,
      actor: { id: user.id, name: user.username, companyId: user.company_id },
      object: { type: 'user', id: user.id },
      details: { at_sign_in: true },
    });
    return { ...(await this.deps.startSession(user)), recovery_codes: recoveryCodes };
  }

  private async challenge(user: UserRow, purpose: ChallengePurpose): Promise<TSecondFactorDue> {
    const token = newToken();
    const now = this.authenticators.clock();
    const expiresAt = nowIso(new Date(now + (purpose === 'code' ? CODE_CHALLENGE_MS : ENROLMENT_CHALLENGE_MS)));
    await this.authenticators.repo.purgeChallenges(nowIso(new Date(now)));
    await this.authenticators.repo.createChallenge({ tokenHash: hashToken(token), userId: user.id, purpose, now: nowIso(new Date(now)), expiresAt });
    return {
      message: purpose === 'code' ? CODE_DUE_MESSAGE : ENROLMENT_DUE_MESSAGE,
      second_factor_required: true,
      enrolment_required: purpose === 'enrolment',
      challenge: token,
      expires_at: expiresAt,
    };
  }

  /** The challenge's live row and its user, or 401: unknown, used, expired, of the other purpose, or its user disabled since. */
  private async live(token: string, purpose: ChallengePurpose): Promise<{ challenge: SecondFactorChallengeRow; user: UserRow }> {
    const challenge = looksLikeToken(token) ? await this.authenticators.repo.findChallenge(hashToken(token)) : undefined;
    if (!challenge || challenge.purpose !== purpose || challenge.used_at !== null || Date.parse(challenge.expires_at) <= this.authenticators.clock()) {
      throw unauthorized(EXPIRED_MESSAGE);
    }
    const user = await this.deps.users.findById(challenge.user_id);
    if (!user || user.disabled) throw unauthorized(EXPIRED_MESSAGE);
    return { challenge, user };
  }

  private async admit(user: UserRow, ip: string): Promise<PasswordAttempt> {
    return this.deps.throttle.admit(user.username, ip).catch(async (error: unknown) => {
      if (error instanceof AppError && error.status === 429) {
        await this.deps.audit.record({ action: 'login.throttled', companyId: user.company_id, actor: { id: user.id, name: user.username, companyId: user.company_id }, details: { known_username: true, second_step: true } });
      }
      throw error;
    });
  }
}
