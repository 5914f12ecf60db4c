import type { TAdminUser } from '@portal/contract';
import type { UserRow } from '../db/schema.js';
import { presentUser } from '../users/index.js';

/** A user as administrators see them: no hash, ever. */
export function presentAdminUser(row: UserRow): TAdminUser {
  return { ...presentUser(row), email: row.email, disabled: Boolean(row.disabled), created_at: row.created_at, updated_at: row.updated_at };
}
