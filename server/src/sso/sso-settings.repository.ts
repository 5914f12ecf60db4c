import type { Db } from '../db/database.js';
import { nowIso } from '../db/database.js';
import type { CompanySsoRow } from '../db/schema.js';

export interface SsoSettingsInput {
  enabled: boolean;
  issuer: string;
  client_id: string;
  /** undefined keeps the stored secret. */
  client_secret_enc: string | undefined;
  password_login_allowed: boolean;
  auto_create_users: boolean;
}

export class SsoSettingsRepository {
  constructor(private readonly db: Db) {}

  find(companyId: number): Promise<CompanySsoRow | undefined> {
    return this.db.selectFrom('company_sso').selectAll().where('company_id', '=', companyId).executeTakeFirst();
  }

  async save(companyId: number, input: SsoSettingsInput): Promise<CompanySsoRow> {
    const values = {
      enabled: input.enabled ? 1 : 0,
      issuer: input.issuer,
      client_id: input.client_id,
      password_login_allowed: input.password_login_allowed ? 1 : 0,
      auto_create_users: input.auto_create_users ? 1 : 0,
      updated_at: nowIso(),
      ...(input.client_secret_enc === undefined ? {} : { client_secret_enc: input.client_secret_enc }),
    };
    return this.db
      .insertInto('company_sso')
      .values({ company_id: companyId, client_secret_enc: null, ...values })
      .onConflict((oc) => oc.column('company_id').doUpdateSet(values))
      .returningAll()
      .executeTakeFirstOrThrow();
  }
}
