// Who a provider's id token names, among the users of the company whose provider issued it, and
// nowhere else: the e-mail claim (when the provider has verified it) first, then preferred_username.
import type { TRole } from '@portal/contract';
import { ROLES } from '@portal/contract';
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { UserRow } from '../db/schema.js';
import type { Identity } from './oidc-client.js';

const USERNAME = /^[\p{L}\p{N}._@+-]{1,255}$/u;

export async function findCompanyUser(db: Db, companyId: number, identity: Identity): Promise<UserRow | undefined> {
  if (identity.email) {
    const byEmail = await db
      .selectFrom('users')
      .selectAll()
      .where('company_id', '=', companyId)
      .where(sql<string>`lower(email)`, '=', identity.email.toLowerCase())
      .limit(2)
      .execute();
    // Two users sharing an address cannot be told apart by it.
    if (byEmail.length === 1) return byEmail[0];
  }
  if (identity.preferredUsername) {
    return db
      .selectFrom('users')
      .selectAll()
      .where('company_id', '=', companyId)
      .where('username', '=', identity.preferredUsername)
      .executeTakeFirst();
  }
  return undefined;
}

/** The new user a first sign-in creates (auto_create_users), or undefined when no usable username is claimed. */
export interface NewSsoUser {
  companyId: number;
  username: string;
  firstname: string;
  lastname: string;
  role: TRole;
  email: string | null;
  password: undefined;
}

export function newUserFrom(identity: Identity, companyId: number): NewSsoUser | undefined {
  const username = [identity.preferredUsername, identity.email].find((name) => name !== undefined && USERNAME.test(name));
  if (!username) return undefined;
  const [first, ...rest] = (identity.name ?? '').split(/\s+/).filter(Boolean);
  return {
    companyId,
    username,
    firstname: identity.givenName ?? first ?? username,
    lastname: identity.familyName ?? (rest.length ? rest.join(' ') : '-'),
    role: ROLES.User,
    email: identity.email ?? null,
    // No password: the user signs in through the provider (an admin's reset link can give one).
    password: undefined,
  };
}
