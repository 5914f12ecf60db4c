// All SQL of two-factor sign-in. Every "use once" is one conditional UPDATE, so two requests racing
// with the same code, recovery code or challenge cannot both succeed, on SQLite as on PostgreSQL.
import type { Db } from '../db/database.js';
import type { SecondFactorChallengeRow, UserSecondFactorRow } from '../db/schema.js';

export type ChallengePurpose = 'code' | 'enrolment';

export class TwoFactorRepository {
  constructor(private readonly db: Db) {}

  find(userId: number): Promise<UserSecondFactorRow | undefined> {
    return this.db.selectFrom('user_second_factors').selectAll().where('user_id', '=', userId).executeTakeFirst();
  }

  /** A new secret waiting for its first code (replacing an earlier unconfirmed one). */
  async savePending(userId: number, secretSealed: string, now: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('user_second_factors').where('user_id', '=', userId).where('confirmed_at', 'is', null).execute();
      await trx.insertInto('user_second_factors').values({ user_id: userId, secret_sealed: secretSealed, confirmed_at: null, last_used_step: null, created_at: now }).execute();
    });
  }

  /** Turns a confirmed secret on with its recovery codes, replacing whatever the user had. */
  async enable(userId: number, secretSealed: string, step: number, codeHashes: string[], now: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('user_second_factors').where('user_id', '=', userId).execute();
      await trx.deleteFrom('second_factor_recovery_codes').where('user_id', '=', userId).execute();
      await trx.insertInto('user_second_factors').values({ user_id: userId, secret_sealed: secretSealed, confirmed_at: now, last_used_step: step, created_at: now }).execute();
      await trx.insertInto('second_factor_recovery_codes').values(codeHashes.map((code_hash) => ({ user_id: userId, code_hash, used_at: null, created_at: now }))).execute();
    });
  }

  /** Forgets the user's authenticator, recovery codes and open challenges; answers whether one was on. */
  async remove(userId: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const removed = await trx.deleteFrom('user_second_factors').where('user_id', '=', userId).where('confirmed_at', 'is not', null).executeTakeFirst();
      await trx.deleteFrom('user_second_factors').where('user_id', '=', userId).execute();
      await trx.deleteFrom('second_factor_recovery_codes').where('user_id', '=', userId).execute();
      await trx.deleteFrom('second_factor_challenges').where('user_id', '=', userId).execute();
      return Number(removed.numDeletedRows) > 0;
    });
  }

  async replaceRecoveryCodes(userId: number, codeHashes: string[], now: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('second_factor_recovery_codes').where('user_id', '=', userId).execute();
      await trx.insertInto('second_factor_recovery_codes').values(codeHashes.map((code_hash) => ({ user_id: userId, code_hash, used_at: null, created_at: now }))).execute();
    });
  }

  /** Records `step` as the last one used, only if it is later than the last: false when it is not (a replay). */
  async useStep(userId: number, step: number): Promise<boolean> {
    const result = await this.db
      .updateTable('user_second_factors')
      .set({ last_used_step: step })
      .where('user_id', '=', userId)
      .where('confirmed_at', 'is not', null)
      .where((eb) => eb.or([eb('last_used_step', 'is', null), eb('last_used_step', '<', step)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async useRecoveryCode(userId: number, codeHash: string, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable('second_factor_recovery_codes')
      .set({ used_at: now })
      .where('user_id', '=', userId)
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async recoveryCodesLeft(userId: number): Promise<number> {
    const row = await this.db
      .selectFrom('second_factor_recovery_codes')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('user_id', '=', userId)
      .where('used_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async createChallenge(row: { tokenHash: string; userId: number; purpose: ChallengePurpose; now: string; expiresAt: string }): Promise<void> {
    await this.db
      .insertInto('second_factor_challenges')
      .values({ token_hash: row.tokenHash, user_id: row.userId, purpose: row.purpose, secret_sealed: null, created_at: row.now, expires_at: row.expiresAt, used_at: null })
      .execute();
  }

  findChallenge(tokenHash: string): Promise<SecondFactorChallengeRow | undefined> {
    return this.db.selectFrom('second_factor_challenges').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  }

  async setChallengeSecret(id: number, secretSealed: string): Promise<void> {
    await this.db.updateTable('second_factor_challenges').set({ secret_sealed: secretSealed }).where('id', '=', id).execute();
  }

  /** Marks a challenge used; false when it was used already (the other of two racing requests). */
  async useChallenge(id: number, now: string): Promise<boolean> {
    const result = await this.db.updateTable('second_factor_challenges').set({ used_at: now, secret_sealed: null }).where('id', '=', id).where('used_at', 'is', null).executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Challenges live minutes; once expired they only take room. */
  async purgeChallenges(before: string): Promise<void> {
    await this.db.deleteFrom('second_factor_challenges').where('expires_at', '<', before).execute();
  }

  async companyRequires(companyId: number): Promise<boolean> {
    const row = await this.db.selectFrom('company_two_factor').select('required').where('company_id', '=', companyId).executeTakeFirst();
    return Boolean(row?.required);
  }

  async setCompanyRequired(companyId: number, required: boolean, now: string): Promise<void> {
    await this.db
      .insertInto('company_two_factor')
      .values({ company_id: companyId, required: required ? 1 : 0, updated_at: now })
      .onConflict((oc) => oc.column('company_id').doUpdateSet({ required: required ? 1 : 0, updated_at: now }))
      .execute();
  }
}
