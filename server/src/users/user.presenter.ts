import type { TUser } from '@portal/contract';
import type { UserRow } from '../db/schema.js';
import { isRole } from './roles.js';

/** The only shape of a user that leaves the server: no hash, no flags. */
export function presentUser(row: UserRow): TUser {
  if (!isRole(row.role)) throw new Error(`User ${row.id} has an unknown role ${row.role}`);
  return {
    id: row.id,
    username: row.username,
    firstname: row.firstname,
    lastname: row.lastname,
    role: row.role,
    company_id: row.company_id,
  };
}
