// The records of resumable (tus) uploads in progress. Every query that serves a request names the
// user and company the upload belongs to: an upload id is a capability, but only in its creator's
// hands.
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { nowIso } from '../db/database.js';
import type { TusUploadRow } from '../db/schema.js';
import { PreparedQueries } from '../db/prepared-queries.js';

export interface NewTusUpload {
  id: string;
  user_id: number;
  company_id: number;
  project_id: number;
  file_name: string;
  size: number;
  delivery_id: number | null;
  relative_path: string | null;
  /** The rejected file the upload replaces once it becomes a file (issue 35). */
  replaces?: number | null;
}

export interface Owner {
  userId: number;
  companyId: number;
}

export class TusUploadsRepository {
  readonly #prepared: PreparedQueries;

  constructor(private readonly db: Db) {
    this.#prepared = new PreparedQueries(db);
  }

  /** Records a new upload and answers its record. */
  async create(upload: NewTusUpload, expiresAt: Date): Promise<TusUploadRow> {
    const row: TusUploadRow = { ...upload, replaces: upload.replaces ?? null, state: 'open', head_checked: 0, created_at: nowIso(), expires_at: nowIso(expiresAt), file_id: null };
    await this.db.insertInto('tus_uploads').values(row).execute();
    return row;
  }

  /** Any upload by its id, for the tus store (tus-upload-configs.ts): the request was authorised before. */
  find(id: string): Promise<TusUploadRow | undefined> {
    return this.db.selectFrom('tus_uploads').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** An upload of `owner` not yet expired, whatever its state (open, finishing or finished). */
  findMine(id: string, owner: Owner): Promise<TusUploadRow | undefined> {
    return this.db
      .selectFrom('tus_uploads')
      .selectAll()
      .where('id', '=', id)
      .where('user_id', '=', owner.userId)
      .where('company_id', '=', owner.companyId)
      .where('expires_at', '>', nowIso())
      .executeTakeFirst();
  }

  /** Uploads of `owner` not yet finished or removed, expired ones aside: what the per-user cap counts. */
  async countUnfinished(owner: Owner): Promise<number> {
    // Prepared: asked before every upload, each file of a folder included.
    const rows = await this.#prepared.rows<{ n: number | string }>(
      'countUnfinished',
      [owner.userId, owner.companyId, nowIso()],
      (v) =>
        sql`select count(*) as "n" from "tus_uploads" where "user_id" = ${v[0]} and "company_id" = ${v[1]} and "expires_at" > ${v[2]} and "state" <> 'finished'`,
    );
    return Number(rows[0]?.n ?? 0);
  }

  async markHeadChecked(id: string): Promise<void> {
    await this.db.updateTable('tus_uploads').set({ head_checked: 1 }).where('id', '=', id).execute();
  }

  /** Claims an open upload for finishing; false when another request already did (or it is gone). */
  async claimForFinish(id: string, owner: Owner): Promise<boolean> {
    const result = await this.db
      .updateTable('tus_uploads')
      .set({ state: 'finishing' })
      .where('id', '=', id)
      .where('user_id', '=', owner.userId)
      .where('company_id', '=', owner.companyId)
      .where('state', '=', 'open')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * The upload became file `fileId`: its record stays, without bytes, until it expires; the shared
   * store's offset and chunk rows go with the bytes (their objects are removed next).
   */
  async markFinished(id: string, fileId: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('tus_uploads').set({ state: 'finished', file_id: fileId }).where('id', '=', id).execute();
      await trx.deleteFrom('tus_chunks').where('upload_id', '=', id).execute();
      await trx.deleteFrom('tus_offsets').where('upload_id', '=', id).execute();
    });
  }

  async remove(id: string): Promise<void> {
    await this.db.deleteFrom('tus_uploads').where('id', '=', id).execute();
  }

  /**
   * For the sweeper: uploads past their expiry, and with `finishing` also those a finishing request
   * was working on (at start-up of the only process that uploads, whatever it was doing died).
   */
  async stale(opts: { finishing: boolean }): Promise<string[]> {
    let query = this.db.selectFrom('tus_uploads').select('id');
    query = opts.finishing
      ? query.where((eb) => eb.or([eb('expires_at', '<=', nowIso()), eb('state', '=', 'finishing')]))
      : query.where('expires_at', '<=', nowIso());
    return (await query.execute()).map((r) => r.id);
  }

  /** Which of `ids` have a record: a tus file without one is a leftover. */
  async existing(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db.selectFrom('tus_uploads').select('id').where('id', 'in', ids).execute();
    return new Set(rows.map((r) => r.id));
  }
}
