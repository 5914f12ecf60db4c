import type { Db } from '../db/database.js';
import { nowIso } from '../db/database.js';
import type { ProjectRow } from '../db/schema.js';

/** The columns of a project that make its policy (migration 024). */
export type PolicyColumns = Pick<ProjectRow, 'deid_profile' | 'deid_options' | 'deid_updated_at' | 'created_at'>;

export class DeidentificationRepository {
  constructor(private readonly db: Db) {}

  /** The policy of a live project, whoever asks (the server's own processing); undefined when there is none. */
  policyOf(projectId: number): Promise<PolicyColumns | undefined> {
    return this.db
      .selectFrom('projects')
      .select(['deid_profile', 'deid_options', 'deid_updated_at', 'created_at'])
      .where('id', '=', projectId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  }

  /** Undefined when the project was deleted meanwhile. */
  setPolicy(projectId: number, profile: string, options: readonly string[]): Promise<ProjectRow | undefined> {
    return this.db
      .updateTable('projects')
      .set({ deid_profile: profile, deid_options: JSON.stringify(options), deid_updated_at: nowIso() })
      .where('id', '=', projectId)
      .where('deleted_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
  }

  async projectExists(projectId: number): Promise<boolean> {
    return (await this.db.selectFrom('projects').select('id').where('id', '=', projectId).executeTakeFirst()) !== undefined;
  }

  async sealedKeyOf(projectId: number): Promise<string | undefined> {
    return (await this.db.selectFrom('project_keys').select('key_sealed').where('project_id', '=', projectId).executeTakeFirst())?.key_sealed;
  }

  /** Keeps the first key stored for a project: two first uses at once (two nodes, two tabs) agree on one. */
  async addSealedKey(projectId: number, sealed: string): Promise<void> {
    await this.db
      .insertInto('project_keys')
      .values({ project_id: projectId, key_sealed: sealed, created_at: nowIso() })
      .onConflict((oc) => oc.column('project_id').doNothing())
      .execute();
  }
}
