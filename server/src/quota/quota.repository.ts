import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database.js';
import { PreparedQueries } from '../db/prepared-queries.js';

/**
 * The columns `files` and `delivered`: what a company keeps, its live files (a completed
 * delivery's row carries its files' total) and the files that arrived in its deliveries still
 * open. Soft-deleted files, and the files of a soft-deleted project, do not count.
 */
function keptBytes(companyId: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`
    (select coalesce(sum(f.filesize), 0) from project_files f join projects p on p.id = f.project_id
      where f.company_id = ${companyId} and f.deleted_at is null and p.deleted_at is null) as files,
    (select coalesce(sum(f.size), 0) from delivery_files f join deliveries d on d.id = f.delivery_id
      where d.company_id = ${companyId} and d.state = 'open') as delivered`;
}

export class QuotaRepository {
  // Every upload reads its company's allowance: built once (db/prepared-queries.ts), not by Kysely each time.
  readonly #prepared: PreparedQueries;

  constructor(private readonly db: Db) {
    this.#prepared = new PreparedQueries(db);
  }

  /** The company a project belongs to and its allowance (null: unlimited); undefined for no such project. */
  async allowanceOfProject(projectId: number): Promise<{ companyId: number; quotaBytes: number | null } | undefined> {
    const [row] = await this.#prepared.rows<{ company_id: number; quota_bytes: number | string | null }>('allowanceOfProject', [projectId], ([id]) =>
      this.db
        .selectFrom('projects')
        .innerJoin('companies', 'companies.id', 'projects.company_id')
        .select(['projects.company_id', 'companies.quota_bytes'])
        .where('projects.id', '=', id as unknown as number),
    );
    return row && { companyId: row.company_id, quotaBytes: row.quota_bytes === null ? null : Number(row.quota_bytes) };
  }

  /** A company's allowance (null: unlimited); undefined for no such company. */
  async allowanceOfCompany(companyId: number): Promise<{ companyId: number; quotaBytes: number | null } | undefined> {
    const [row] = await this.#prepared.rows<{ id: number; quota_bytes: number | string | null }>('allowanceOfCompany', [companyId], ([id]) =>
      this.db.selectFrom('companies').select(['id', 'quota_bytes']).where('id', '=', id as unknown as number),
    );
    return row && { companyId: row.id, quotaBytes: row.quota_bytes === null ? null : Number(row.quota_bytes) };
  }

  /** Bytes the companies keep (the rule is `keptBytes` below); a company not found counts 0. */
  async usedBytes(companyIds: readonly number[]): Promise<Map<number, number>> {
    const used = new Map<number, number>(companyIds.map((id) => [id, 0]));
    if (companyIds.length === 0) return used;
    const { rows } = await sql<{ id: number; files: number | string; delivered: number | string }>`
      select c.id, ${keptBytes(sql.ref('c.id'))} from companies c where c.id in (${sql.join(companyIds)})
    `.execute(this.db);
    for (const row of rows) used.set(row.id, Number(row.files) + Number(row.delivered));
    return used;
  }

  /**
   * What the company keeps and what its uploads still arriving announced (tus uploads: their
   * Upload-Length; multipart calls: their length), read in one statement so that an upload
   * committed meanwhile is counted once, as kept or as arriving, never as neither. A finished tus
   * upload keeps its record for a while (migration 023), but its bytes are its file's now. A
   * deleted project's files are not marked deleted themselves; they count as deleted (purge.repository.ts).
   */
  async usage(companyId: number): Promise<{ used: number; inFlight: number }> {
    const { rows } = await sql<{ files: number | string; delivered: number | string; tus: number | string; multipart: number | string }>`
      select
        ${keptBytes(sql.val(companyId))},
        (select coalesce(sum(t.size), 0) from tus_uploads t join projects p on p.id = t.project_id where p.company_id = ${companyId} and t.state <> 'finished') as tus,
        (select coalesce(sum(reserved_bytes), 0) from pending_uploads where company_id = ${companyId}) as multipart
    `.execute(this.db);
    const row = rows[0]!;
    return { used: Number(row.files) + Number(row.delivered), inFlight: Number(row.tus) + Number(row.multipart) };
  }
}
