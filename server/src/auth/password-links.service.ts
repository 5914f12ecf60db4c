// Reset links (made by an admin, used once to set a new password) and 'Forgot your password?',
// which tells the user's CompanyAdmins and never whether the account exists.
import { FORGOT_PASSWORD_MESSAGE, ROLES, type TPasswordSetRequest } from '@portal/contract';
import type { AuditTrail } from '../audit/index.js';
import { nowIso } from '../db/database.js';
import type { UserRow } from '../db/schema.js';
import { unprocessable } from '../errors/app-error.js';
import type { Mailer } from '../mail/mailer.js';
import type { UsersRepository } from '../users/index.js';
import { assertStrongPassword, type PasswordHasher } from './password.js';
import type { PasswordLinksRepository } from './password-links.repository.js';
import type { SessionsRepository } from './sessions.repository.js';
import { hashToken, looksLikeToken, newToken } from './token.js';

export const INVALID_LINK_MESSAGE = 'This password link is not valid: it was already used, has expired, or was replaced by a newer one. Ask your administrator for a new link.';

export interface PasswordLinkOptions {
  lifetimeMs: number;
  forgotMaxPerAddress: number;
  forgotWindowMs: number;
  /** PUBLIC_URL, when set: the origin of every link. */
  publicUrl: string | undefined;
}

export interface ResetLink {
  reset_url: string;
  expires_at: string;
}

export class PasswordLinksService {
  constructor(
    private readonly links: PasswordLinksRepository,
    private readonly users: UsersRepository,
    private readonly sessions: SessionsRepository,
    private readonly audit: AuditTrail,
    private readonly mailer: Mailer | undefined,
    private readonly options: PasswordLinkOptions,
    private readonly log: (error: unknown, message: string) => void,
    private readonly passwords: PasswordHasher,
  ) {}

  /**
   * A single-use link for `user` to set a new password, replacing any older one and resolving
   * their open requests. The secret is in the fragment (#), which browsers never send to a server,
   * so it stays out of access logs and Referer headers.
   */
  async create(user: UserRow, createdBy: number, requestOrigin: string): Promise<ResetLink> {
    const now = new Date();
    const token = newToken();
    const expiresAt = nowIso(new Date(now.getTime() + this.options.lifetimeMs));
    await this.links.retireLinks(user.id, nowIso(now));
    await this.links.createLink({
      user_id: user.id,
      company_id: user.company_id,
      token_hash: hashToken(token),
      created_by: createdBy,
      created_at: nowIso(now),
      expires_at: expiresAt,
    });
    await this.links.resolveRequests(user.id, nowIso(now));
    await this.audit.record({ action: 'password.reset_link_created', companyId: user.company_id, object: { type: 'user', id: user.id }, details: { username: user.username, expires_at: expiresAt } });
    const link = { reset_url: `${this.options.publicUrl ?? requestOrigin}/set-password#token=${token}`, expires_at: expiresAt };
    if (user.email) {
      this.#sendLater([user.email], 'Set your password for the Secure Upload Portal', [
        `Hello ${user.firstname},`,
        '',
        `An administrator created a link for you to set a new password for your account ${user.username} on the Secure Upload Portal:`,
        '',
        link.reset_url,
        '',
        `The link works once, until ${expiresAt} (UTC). If you did not expect it, tell your administrator.`,
      ]);
    }
    return link;
  }

  /**
   * Whose account a link sets the password of, while it still works (nothing is changed or
   * recorded); a used, expired, replaced or unknown link is refused with the words of setPassword.
   */
  async describe(token: string): Promise<{ username: string; firstname: string; expires_at: string }> {
    const link = looksLikeToken(token) ? await this.links.findLink(hashToken(token)) : undefined;
    const user = link ? await this.users.findById(link.user_id) : undefined;
    if (!link || !user || user.disabled || link.used_at !== null || link.expires_at <= nowIso()) throw unprocessable(INVALID_LINK_MESSAGE);
    return { username: user.username, firstname: user.firstname, expires_at: link.expires_at };
  }

  /** Sets the password of the link's user, once; every session of theirs is signed out. */
  async setPassword(body: TPasswordSetRequest): Promise<void> {
    if (!body.token || !body.new_password) throw unprocessable('All fields are required');
    assertStrongPassword(body.new_password);
    const link = looksLikeToken(body.token) ? await this.links.findLink(hashToken(body.token)) : undefined;
    const user = link ? await this.users.findById(link.user_id) : undefined;
    const now = nowIso();
    if (!link || !user || user.disabled || !(await this.links.use(link.id, now))) throw unprocessable(INVALID_LINK_MESSAGE);
    await this.users.setPasswordHash(user.id, await this.passwords.hash(body.new_password));
    await this.sessions.revokeAllForUser(user.id, now);
    await this.audit.record({
      action: 'password.reset_link_used',
      companyId: user.company_id,
      object: { type: 'user', id: user.id },
      actor: { id: user.id, name: user.username, companyId: user.company_id },
    });
  }

  /**
   * Records a forgotten password for the user's CompanyAdmins and answers the same message whatever
   * happened. An unknown or disabled username records nothing; a user with a request still open, or
   * an address past its limit, adds nothing either, so the list and the admins' mail cannot be flooded.
   * The work is a few small queries either way, and the e-mail is sent after the answer.
   */
  async forgot(username: string, address: string): Promise<string> {
    const user = await this.users.findByUsername(username);
    const now = new Date();
    const since = nowIso(new Date(now.getTime() - this.options.forgotWindowMs));
    const recent = await this.links.requestsFromAddress(address, since);
    if (!user || user.disabled || recent >= this.options.forgotMaxPerAddress || (await this.links.hasOpenRequest(user.id))) {
      return FORGOT_PASSWORD_MESSAGE;
    }
    const id = await this.links.createRequest({ user_id: user.id, company_id: user.company_id, address, created_at: nowIso(now) });
    await this.audit.record({
      action: 'password.forgot_requested',
      companyId: user.company_id,
      object: { type: 'user', id: user.id },
      actor: { id: user.id, name: user.username, companyId: user.company_id },
      details: { request_id: id },
    });
    if (this.mailer) {
      const admins = await this.users.withRole(user.company_id, ROLES.CompanyAdmin);
      this.#sendLater(
        admins.flatMap((a) => (a.email && !a.disabled ? [a.email] : [])),
        `Password reset requested by ${user.username}`,
        [
          `${user.firstname} ${user.lastname} (${user.username}) asked for a new password on the Secure Upload Portal.`,
          '',
          'If you expected it, open Administration > Users in the portal, make a reset link for them and send it to them.',
          'If not, you need do nothing; the request stays in the list of password requests.',
        ],
      );
    }
    return FORGOT_PASSWORD_MESSAGE;
  }

  #sendLater(to: string[], subject: string, lines: string[]): void {
    if (!this.mailer || to.length === 0) return;
    this.mailer.send({ to, subject, text: lines.join('\n') }).catch((error: unknown) => this.log(error, 'could not send an e-mail (SMTP_URL)'));
  }
}
