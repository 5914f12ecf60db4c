// A user's own two-factor settings (enrol, turn off, new recovery codes), an administrator's reset
// of a user's second factor, and the company setting that makes it mandatory. Users who sign in
// through their company's identity provider cannot enrol: their provider decides.
import { ROLES, type TCompanyTwoFactor, type TRecoveryCodes, type TTwoFactorProof, type TTwoFactorSetup, type TTwoFactorStatus } from '@portal/contract';
import type { AuditTrail } from '../audit/index.js';
import type { Actor, AuthenticatedSession, LoginThrottle, PasswordLoginRefusal } from '../auth/index.js';
import { verifyPassword } from '../auth/index.js';
import type { CompaniesRepository } from '../companies/index.js';
import type { UserRow } from '../db/schema.js';
import { conflict, forbidden, notFound, unauthorized, unprocessable } from '../errors/app-error.js';
import type { UsersRepository } from '../users/index.js';
import { WRONG_CODE, type Authenticators } from './authenticators.js';

/** Set by createUser for users without a password (auth/… never verifies it). */
const NO_PASSWORD = '!';
const PROVIDER_DECIDES = 'You sign in through your company’s identity provider: two-factor sign-in is set up there, not here.';
const NOT_ON = 'Two-factor sign-in is not turned on for your account.';

export interface TwoFactorDeps {
  users: UsersRepository;
  companies: CompaniesRepository;
  throttle: LoginThrottle;
  audit: AuditTrail;
  passwordLoginRefusal: PasswordLoginRefusal;
}

export class TwoFactorService {
  constructor(
    private readonly authenticators: Authenticators,
    private readonly deps: TwoFactorDeps,
  ) {}

  async status(session: AuthenticatedSession): Promise<TTwoFactorStatus> {
    const user = await this.me(session);
    const factor = await this.authenticators.repo.find(user.id);
    const enabled = Boolean(factor?.confirmed_at);
    return {
      enabled,
      available: await this.available(user),
      required: await this.authenticators.repo.companyRequires(user.company_id),
      enabled_at: enabled ? factor!.confirmed_at : null,
      recovery_codes_left: enabled ? await this.authenticators.repo.recoveryCodesLeft(user.id) : 0,
    };
  }

  /** A new secret to scan; it works only once its first code confirms it. */
  async start(session: AuthenticatedSession): Promise<TTwoFactorSetup> {
    const user = await this.me(session);
    if (!(await this.available(user))) throw forbidden(PROVIDER_DECIDES);
    if ((await this.authenticators.repo.find(user.id))?.confirmed_at) {
      throw conflict('Two-factor sign-in is already on. Turn it off first to move it to another authenticator.');
    }
    const { sealed, setup } = await this.authenticators.newSetup(user);
    await this.authenticators.repo.savePending(user.id, sealed, this.authenticators.nowIso());
    return setup;
  }

  async confirm(session: AuthenticatedSession, code: string): Promise<TRecoveryCodes> {
    const user = await this.me(session);
    const pending = await this.authenticators.repo.find(user.id);
    if (!pending || pending.confirmed_at) throw unprocessable('Start setting up two-factor sign-in first: scan the QR code, then enter its code.');
    const step = await this.authenticators.stepOf(user.id, pending.secret_sealed, code, null);
    if (step === null) throw unprocessable(WRONG_CODE);
    const recoveryCodes = await this.authenticators.enable(user.id, pending.secret_sealed, step);
    await this.deps.audit.record({ action: 'two_factor.enabled', companyId: user.company_id, object: { type: 'user', id: user.id } });
    return { recovery_codes: recoveryCodes };
  }

  async disable(session: AuthenticatedSession, proof: TTwoFactorProof, ip: string): Promise<TTwoFactorStatus> {
    const user = await this.me(session);
    await this.prove(user, proof, ip);
    await this.authenticators.repo.remove(user.id);
    await this.deps.audit.record({ action: 'two_factor.disabled', companyId: user.company_id, object: { type: 'user', id: user.id }, details: { proof: proof.code !== undefined ? 'code' : 'password' } });
    return this.status(session);
  }

  async regenerate(session: AuthenticatedSession, proof: TTwoFactorProof, ip: string): Promise<TRecoveryCodes> {
    const user = await this.me(session);
    await this.prove(user, proof, ip);
    const recoveryCodes = await this.authenticators.newRecoveryCodes(user.id);
    await this.deps.audit.record({ action: 'two_factor.recovery_codes_regenerated', companyId: user.company_id, object: { type: 'user', id: user.id } });
    return { recovery_codes: recoveryCodes };
  }

  /**
   * An administrator's reset (a lost phone and no recovery codes): the user signs in with their
   * password alone again, or enrols anew at once where the company requires it. Another company's
   * user answers 404; a CompanyAdmin may not reset a Sys role's.
   */
  async reset(actor: Actor, userId: number): Promise<void> {
    requireUserAdmin(actor);
    const user = await this.deps.users.findById(userId, actor.role === ROLES.SysAdmin ? 'all' : actor.companyId);
    if (!user) throw notFound('User not found');
    if (actor.role !== ROLES.SysAdmin && user.role !== ROLES.User && user.role !== ROLES.CompanyAdmin) {
      throw forbidden('A CompanyAdmin may manage Users and CompanyAdmins only');
    }
    if (!(await this.authenticators.repo.remove(user.id))) throw unprocessable(`${user.username} has not set up two-factor sign-in: there is nothing to reset.`);
    await this.deps.audit.record({ action: 'two_factor.reset', companyId: user.company_id, object: { type: 'user', id: user.id }, details: { username: user.username } });
  }

  async companySetting(actor: Actor, companyId: number): Promise<TCompanyTwoFactor> {
    await this.company(actor, companyId);
    return { company_id: companyId, required: await this.authenticators.repo.companyRequires(companyId) };
  }

  async setCompanySetting(actor: Actor, companyId: number, required: boolean): Promise<TCompanyTwoFactor> {
    await this.company(actor, companyId);
    await this.authenticators.repo.setCompanyRequired(companyId, required, this.authenticators.nowIso());
    await this.deps.audit.record({ action: 'company.changed', companyId, object: { type: 'company', id: companyId }, details: { two_factor_required: required } });
    return { company_id: companyId, required };
  }

  /** A SysAdmin's any company, a CompanyAdmin's own (another answers 404, as one that does not exist). */
  private async company(actor: Actor, companyId: number): Promise<void> {
    requireUserAdmin(actor);
    const company = actor.role === ROLES.SysAdmin || companyId === actor.companyId ? await this.deps.companies.findById(companyId, 'all') : undefined;
    if (!company) throw notFound('Company not found');
  }

  /** A password user whose company lets them sign in with it. */
  private async available(user: UserRow): Promise<boolean> {
    return user.password_hash !== NO_PASSWORD && (await this.deps.passwordLoginRefusal(user)) === null;
  }

  /** A current code (spent, so it cannot be replayed) or the password, both under the sign-in throttle. */
  private async prove(user: UserRow, proof: TTwoFactorProof, ip: string): Promise<void> {
    if (!(await this.authenticators.repo.find(user.id))?.confirmed_at) throw unprocessable(NOT_ON);
    const attempt = await this.deps.throttle.admit(user.username, ip);
    const ok = proof.code !== undefined ? await this.authenticators.useCode(user.id, proof.code) : await verifyPassword(user.password_hash, proof.password ?? '');
    if (!ok) throw unprocessable(proof.code !== undefined ? WRONG_CODE : 'The password is incorrect.');
    await this.deps.throttle.succeeded(attempt);
  }

  private async me(session: AuthenticatedSession): Promise<UserRow> {
    const user = await this.deps.users.findById(session.actor.userId);
    if (!user) throw unauthorized('Your session has expired. Please log in again.');
    return user;
  }
}

function requireUserAdmin(actor: Actor): void {
  if (actor.role !== ROLES.SysAdmin && actor.role !== ROLES.CompanyAdmin) throw forbidden('Only administrators may manage users');
}
