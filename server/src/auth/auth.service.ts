// Sign-in, token checks, sign-out and password changes. Every failure to sign in looks the same.
import type { TLoginResponse, TPasswordResetRequest, TSecondFactorDue } from '@portal/contract';
import type { AuditTrail } from '../audit/index.js';
import { ROLES } from '@portal/contract';
import { nowIso } from '../db/database.js';
import type { UserRow } from '../db/schema.js';
import { AppError, forbidden, notFound, unauthorized, unprocessable } from '../errors/app-error.js';
import type { UsersRepository } from '../users/index.js';
import { presentUser } from '../users/index.js';
import type { LoginThrottle } from './login-throttle.js';
import { assertStrongPassword, verifyPassword, type PasswordHasher } from './password.js';
import { companyScope, type Actor } from './permissions.js';
import { isRole } from '../users/index.js';
import type { SessionsRepository } from './sessions.repository.js';
import { hashToken, looksLikeToken, newToken } from './token.js';

export const INVALID_LOGIN_MESSAGE = 'Invalid username or password';
const SESSION_EXPIRED_MESSAGE = 'Your session has expired. Please log in again.';
/** Writing last_used_at on every request would turn every read into a write. */
const TOUCH_INTERVAL_MS = 60_000;

export interface SessionLifetimes {
  idleMs: number;
  absoluteMs: number;
}

/**
 * Why a user may not sign in with a password (their company signs in through its identity
 * provider), in words for the login screen; null when they may.
 */
export type PasswordLoginRefusal = (user: UserRow) => Promise<string | null>;

/**
 * After the right password: the challenge of a second step still due (two-factor/), or null when
 * none is and the session starts at once.
 */
export interface SecondFactorGate {
  due(user: UserRow): Promise<TSecondFactorDue | null>;
}

export interface AuthenticatedSession {
  actor: Actor;
  sessionId: number;
  /** For the audit trail's rows. */
  username: string;
}

export class AuthService {
  constructor(
    private readonly users: UsersRepository,
    private readonly sessions: SessionsRepository,
    private readonly throttle: LoginThrottle,
    private readonly lifetimes: SessionLifetimes,
    private readonly audit: AuditTrail,
    private readonly passwords: PasswordHasher,
    private readonly passwordLoginRefusal: PasswordLoginRefusal = () => Promise.resolve(null),
    private readonly secondFactor: SecondFactorGate = { due: () => Promise.resolve(null) },
  ) {}

  /** The spec's answer, or (two-factor sign-in) the challenge of the second step still due. */
  async login(username: string, password: string, ip: string): Promise<TLoginResponse | TSecondFactorDue> {
    const user = await this.users.findByUsername(username);
    // The username is recorded only when it names an account: a password typed into the wrong field stays out of the trail.
    const who = user ? { id: user.id, name: user.username, companyId: user.company_id } : { id: null, name: null, companyId: null };
    const attempt = await this.throttle.admit(username, ip).catch(async (error: unknown) => {
      if (error instanceof AppError && error.status === 429) {
        await this.audit.record({ action: 'login.throttled', companyId: who.companyId, actor: who, details: { known_username: Boolean(user) } });
      }
      throw error;
    });
    const refusal = user && !user.disabled ? await this.passwordLoginRefusal(user) : null;
    if (user && refusal) {
      await this.audit.record({ action: 'login.failure', companyId: who.companyId, actor: who, details: { known_username: true, reason: 'sso_only' } });
      throw new AppError(403, refusal);
    }
    const passwordOk = await verifyPassword(user?.password_hash ?? (await this.passwords.decoy()), password);
    if (!user || !passwordOk || user.disabled || !isRole(user.role)) {
      await this.audit.record({ action: 'login.failure', companyId: who.companyId, actor: who, details: { known_username: Boolean(user), disabled: user ? Boolean(user.disabled) : undefined } });
      throw new AppError(401, INVALID_LOGIN_MESSAGE);
    }
    const due = await this.secondFactor.due(user);
    if (due && !due.enrolment_required) {
      await this.throttle.passwordRight(attempt);
      return due;
    }
    await this.throttle.succeeded(attempt);
    return due ?? this.startSession(user, 'password');
  }

  /**
   * A new session for a user who has proven who they are (a password, or their company's identity
   * provider): the same token and answer whichever way they came, audited as a sign-in.
   */
  async startSession(user: UserRow, method: 'password' | 'sso'): Promise<TLoginResponse> {
    const now = new Date();
    const who = { id: user.id, name: user.username, companyId: user.company_id };
    await this.audit.record({
      action: 'login.success',
      companyId: user.company_id,
      actor: who,
      object: { type: 'user', id: user.id },
      details: method === 'sso' ? { method } : undefined,
    });
    const token = newToken();
    await this.sessions.create({
      user_id: user.id,
      token_hash: hashToken(token),
      now: nowIso(now),
      expires_at: nowIso(new Date(now.getTime() + this.lifetimes.absoluteMs)),
    });
    return { token, user: presentUser(user) };
  }

  /** Resolves a bearer token to its user, or throws 401 for anything not a live session. */
  async authenticate(token: string): Promise<AuthenticatedSession & { user: UserRow }> {
    if (!looksLikeToken(token)) throw unauthorized(SESSION_EXPIRED_MESSAGE);
    const found = await this.sessions.findWithUser(hashToken(token));
    const now = Date.now();
    if (
      !found ||
      found.session.revoked_at !== null ||
      Date.parse(found.session.expires_at) <= now ||
      Date.parse(found.session.last_used_at) + this.lifetimes.idleMs <= now
    ) {
      throw unauthorized(SESSION_EXPIRED_MESSAGE);
    }
    const { session, user } = found;
    if (user.disabled || !isRole(user.role)) throw unauthorized(SESSION_EXPIRED_MESSAGE);
    if (now - Date.parse(session.last_used_at) > TOUCH_INTERVAL_MS) {
      await this.sessions.touch(session.id, nowIso(new Date(now)));
    }
    return {
      sessionId: session.id,
      username: user.username,
      actor: { userId: user.id, companyId: user.company_id, role: user.role },
      user,
    };
  }

  async currentUser(session: AuthenticatedSession): Promise<UserRow> {
    const user = await this.users.findById(session.actor.userId);
    if (!user) throw unauthorized(SESSION_EXPIRED_MESSAGE);
    return user;
  }

  async logout(session: AuthenticatedSession): Promise<void> {
    await this.sessions.revoke(session.sessionId, nowIso());
    await this.audit.record({ action: 'logout', companyId: session.actor.companyId, object: { type: 'user', id: session.actor.userId } });
  }

  /**
   * Changes a password. One's own needs one's current password; a SysAdmin changing another
   * user's password re-authenticates with their own current password instead. `ip` is the
   * client's address, for the throttle.
   */
  async changePassword(session: AuthenticatedSession, body: TPasswordResetRequest, ip: string): Promise<void> {
    const { actor } = session;
    const target = await this.users.findById(body.userid, companyScope(actor));
    if (!target) throw notFound('User not found');
    const self = target.id === actor.userId;
    if (!self && actor.role !== ROLES.SysAdmin) throw forbidden('You can only change your own password');
    if (!body.old_password || !body.new_password) throw unprocessable('All fields are required');
    assertStrongPassword(body.new_password);

    const confirming = self ? target : await this.users.findById(actor.userId);
    if (!confirming) throw unauthorized(SESSION_EXPIRED_MESSAGE);
    // A stolen session must not become a way to guess its owner's password: the current password
    // is checked under the same throttle as a sign-in, sharing its counters.
    const attempt = await this.throttle.admit(confirming.username, ip);
    if (!(await verifyPassword(confirming.password_hash, body.old_password))) {
      throw unprocessable('The current password is incorrect');
    }
    await this.throttle.succeeded(attempt);
    if (await verifyPassword(target.password_hash, body.new_password)) {
      throw unprocessable('New password must be different from the current one');
    }
    await this.users.setPasswordHash(target.id, await this.passwords.hash(body.new_password));
    await this.sessions.revokeAllForUser(target.id, nowIso(), self ? session.sessionId : undefined);
    await this.audit.record({ action: 'password.changed', companyId: target.company_id, object: { type: 'user', id: target.id }, details: { username: target.username } });
  }
}
