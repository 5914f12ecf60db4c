// The users an administrator manages (issue 15): a SysAdmin every company's, a CompanyAdmin their
// own company's with roles 1–2. Another company's user answers 404, as one that does not exist.
import { LIST_PER_PAGE_DEFAULT, type TCreateUser, type TUpdateUser } from '@portal/contract';
import { companyScope, type Actor } from '../auth/index.js';
import type { UserRow } from '../db/schema.js';
import { forbidden, notFound, unprocessable } from '../errors/app-error.js';
import type { Services } from '../services.js';
import { isSysAdmin, mayManageRole, requireUserAdmin } from './admin-access.js';
import { presentAdminUser } from './admin-user.presenter.js';
import { createUser, setDisabled } from './user-admin.js';

export interface ListQuery {
  q?: string | undefined;
  order?: 'asc' | 'desc' | undefined;
  page?: number | undefined;
  per_page?: number | undefined;
}

export function paging(query: ListQuery) {
  const page = query.page ?? 1;
  const perPage = query.per_page ?? LIST_PER_PAGE_DEFAULT;
  return { page, perPage, offset: (page - 1) * perPage, order: query.order ?? 'asc' };
}

/** A CompanyAdmin's own company, or for a SysAdmin the one asked for (404 when it does not exist). */
async function companyFor(services: Services, actor: Actor, companyId: number | undefined): Promise<number | undefined> {
  if (companyId === undefined) return isSysAdmin(actor) ? undefined : actor.companyId;
  if (!(await services.repos.companies.findById(companyId, isSysAdmin(actor) ? 'all' : actor.companyId))) throw notFound('Company not found');
  return companyId;
}

export class UsersAdministration {
  constructor(private readonly services: Services) {}

  async list(actor: Actor, query: ListQuery & { company_id?: number | undefined }) {
    requireUserAdmin(actor);
    const companyId = await companyFor(this.services, actor, query.company_id);
    const { page, perPage, offset, order } = paging(query);
    const { rows, total } = await this.services.repos.users.page({ scope: companyScope(actor), companyId, q: query.q }, order, offset, perPage);
    return { data: rows.map(presentAdminUser), page: { page, per_page: perPage, total } };
  }

  async create(actor: Actor, body: TCreateUser) {
    requireUserAdmin(actor);
    if (isSysAdmin(actor) && body.company_id === undefined) throw unprocessable('company_id is required: the company the user belongs to');
    const companyId = (await companyFor(this.services, actor, body.company_id)) ?? actor.companyId;
    if (!mayManageRole(actor, body.role)) throw forbidden('A CompanyAdmin may create Users and CompanyAdmins only');
    const user = await createUser(this.services, {
      companyId,
      username: body.username,
      password: body.password,
      firstname: body.firstname,
      lastname: body.lastname,
      role: body.role,
      email: body.email,
    });
    return presentAdminUser(user);
  }

  /** The user if the actor may manage them: 404 outside the actor's company, 403 for a Sys role a CompanyAdmin may not touch. */
  async require(actor: Actor, id: number): Promise<UserRow> {
    requireUserAdmin(actor);
    const user = await this.services.repos.users.findById(id, isSysAdmin(actor) ? 'all' : actor.companyId);
    if (!user) throw notFound('User not found');
    if (!mayManageRole(actor, user.role)) throw forbidden('A CompanyAdmin may manage Users and CompanyAdmins only');
    return user;
  }

  async update(actor: Actor, id: number, body: TUpdateUser) {
    const user = await this.require(actor, id);
    if (body.role !== undefined && !mayManageRole(actor, body.role)) throw forbidden('A CompanyAdmin may give the roles User and CompanyAdmin only');
    if (user.id === actor.userId && body.disabled === true) throw unprocessable('You cannot disable your own account');
    if (user.id === actor.userId && body.role !== undefined && body.role !== user.role) throw unprocessable('You cannot change your own role');
    const changes = {
      ...(body.firstname !== undefined && body.firstname !== user.firstname ? { firstname: body.firstname } : {}),
      ...(body.lastname !== undefined && body.lastname !== user.lastname ? { lastname: body.lastname } : {}),
      ...(body.role !== undefined && body.role !== user.role ? { role: body.role } : {}),
      ...(body.email !== undefined && body.email !== user.email ? { email: body.email } : {}),
    };
    if (Object.keys(changes).length > 0) {
      await this.services.repos.users.update(user.id, changes);
      await this.services.audit.record({
        action: 'user.changed',
        companyId: user.company_id,
        object: { type: 'user', id: user.id },
        details: { username: user.username, changed: Object.keys(changes).join(','), ...('role' in changes ? { role: changes.role } : {}) },
      });
    }
    if (body.disabled !== undefined && body.disabled !== Boolean(user.disabled)) await setDisabled(this.services, user, body.disabled);
    return presentAdminUser((await this.services.repos.users.findById(user.id))!);
  }

  async resetLink(actor: Actor, id: number, requestOrigin: string) {
    const user = await this.require(actor, id);
    if (user.disabled) throw unprocessable('This user is disabled: enable them first, then make the link');
    return this.services.passwordLinks.create(user, actor.userId, requestOrigin);
  }

  async passwordRequests(actor: Actor, query: ListQuery & { status?: 'open' | 'resolved' | 'all' | undefined }) {
    requireUserAdmin(actor);
    const { page, perPage, offset } = paging(query);
    const filter = { scope: isSysAdmin(actor) ? ('all' as const) : actor.companyId, status: query.status ?? 'open', q: query.q };
    const [rows, total] = await Promise.all([
      this.services.repos.passwordLinks.listRequests(filter, query.order ?? 'desc', offset, perPage),
      this.services.repos.passwordLinks.countRequests(filter),
    ]);
    return { data: rows, page: { page, per_page: perPage, total } };
  }
}
