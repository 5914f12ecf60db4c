const ROLE_NAMES: Record<number, string> = { 1: 'User', 2: 'CompanyAdmin', 3: 'SysUser', 4: 'SysAdmin' };

/** Spec §3: role numbers as shown to the user; anything else is 'Unknown'. */
export function roleName(role: number | null | undefined): string {
  return (role !== null && role !== undefined && ROLE_NAMES[role]) || 'Unknown';
}

/** DESIGN §5: the roles that administer users (CompanyAdmin their company's, SysAdmin everyone). */
export function isAdministrator(role: number | null | undefined): boolean {
  return role === 2 || role === 4;
}

/** Issue 35: the receiving side (SysUser, SysAdmin), who set a project's arrival rules and accept or reject what arrives. */
export function isReviewer(role: number | null | undefined): boolean {
  return role === 3 || role === 4;
}
