// DESIGN §5 decided in one place. Services ask here before they read or change anything.
import { ROLES, type TRole } from '@portal/contract';

export interface Actor {
  userId: number;
  companyId: number;
  role: TRole;
  /** Set when the request came with an API token limited to these projects (tokens/): it reaches no other. */
  projectIds?: readonly number[] | undefined;
}

export type Action =
  | 'read' // list and view projects, files and a company
  | 'download'
  | 'create'
  | 'update'
  | 'delete'
  | 'manageUsers'
  | 'manageCompanies'
  // How a project's uploads are de-identified (issue 33): the operator decides, for every company.
  | 'setDeidentification'
  // The project's de-identification key, which its pseudonyms are made with: only the people of the
  // company that sends the data (the hospital) hold it, never the operator's SysUser or SysAdmin.
  | 'receiveProjectKey'
  // Arrival rules and the review of what arrives (issue 35): the receiving side, the operator's
  // SysUser and SysAdmin, for every company; the sending company reads the outcome only.
  | 'setRules'
  | 'review';

const isSys = (actor: Actor) => actor.role === ROLES.SysUser || actor.role === ROLES.SysAdmin;

/** Whether the actor may see anything of another company at all. */
export function seesAllCompanies(actor: Actor): boolean {
  return isSys(actor);
}

/**
 * The companies whose rows an actor's queries may touch: its own, or every one. Repositories put
 * this in their WHERE clause, so a row of another company is never read, and so answers 404.
 */
export function companyScope(actor: Actor): number | 'all' {
  return seesAllCompanies(actor) ? 'all' : actor.companyId;
}

/** Whether `actor` may perform `action` on something that belongs to `companyId`. */
export function can(actor: Actor, action: Action, companyId: number): boolean {
  const own = companyId === actor.companyId;
  switch (actor.role) {
    case ROLES.SysAdmin:
      return action !== 'receiveProjectKey';
    case ROLES.SysUser:
      return action === 'read' || action === 'download' || action === 'setRules' || action === 'review';
    case ROLES.CompanyAdmin:
      return own && action !== 'manageCompanies' && action !== 'setDeidentification' && action !== 'setRules' && action !== 'review';
    case ROLES.User:
      return own && action !== 'manageUsers' && action !== 'manageCompanies' && action !== 'setDeidentification' && action !== 'setRules' && action !== 'review';
  }
}
