// Who may administer what (DESIGN §5): a SysAdmin everything, a CompanyAdmin the users of their own
// company with roles 1–2; anyone else is refused with 403 before anything is read.
import { ROLES } from '@portal/contract';
import type { Actor } from '../auth/index.js';
import { forbidden } from '../errors/app-error.js';

export const isSysAdmin = (actor: Actor) => actor.role === ROLES.SysAdmin;

export function requireUserAdmin(actor: Actor): void {
  if (actor.role !== ROLES.SysAdmin && actor.role !== ROLES.CompanyAdmin) throw forbidden('Only administrators may manage users');
}

export function requireSysAdmin(actor: Actor): void {
  if (!isSysAdmin(actor)) throw forbidden('Only a SysAdmin may manage companies');
}

/** The roles a CompanyAdmin may see changed and may give: User and CompanyAdmin. */
export function mayManageRole(actor: Actor, role: number): boolean {
  return isSysAdmin(actor) || role === ROLES.User || role === ROLES.CompanyAdmin;
}
