// Who a provider's id token names, among the users of the company whose provider issued it, and
// nowhere else: the e-mail claim (when the provider has verified it) first, then preferred_username.
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { UserRow } from '../db/schema.js';
import type { Identity } from './oidc-client.js';

export class SsoUsersRepository {
  constructor(private readonly db: Db) {}

  async findInCompany(companyId: number, identity: Identity): Promise<UserRow | undefined> {
    if (identity.email) {
      const byEmail = await this.db
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
      return this.db
        .selectFrom('users')
        .selectAll()
        .where('company_id', '=', companyId)
        .where('username', '=', identity.preferredUsername)
        .executeTakeFirst();
    }
    return undefined;
  }
}
