// Role numbers are the spec's (§3); names are accepted wherever a person types a role.
import { ROLES, type TRole } from '@portal/contract';

export type RoleName = keyof typeof ROLES;

export function parseRole(input: string): TRole | undefined {
  const trimmed = input.trim();
  const byNumber = Object.values(ROLES).find((n) => String(n) === trimmed);
  if (byNumber !== undefined) return byNumber;
  const entry = Object.entries(ROLES).find(([name]) => name.toLowerCase() === trimmed.toLowerCase());
  return entry?.[1];
}

export function isRole(value: number): value is TRole {
  return Object.values(ROLES).some((n) => n === value);
}

/** The spec's name of a role number (`SysAdmin` for 4), as people read it in lists. */
export function roleName(role: number): string {
  return Object.entries(ROLES).find(([, n]) => n === role)?.[0] ?? `unknown (${role})`;
}
