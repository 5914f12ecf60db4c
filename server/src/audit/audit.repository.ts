import type { Db } from '../db/database.js';
import type { AuditHeadTable, AuditLogRow } from '../db/schema.js';
import { chainHash, type ChainedFields } from './audit-chain.js';
import { PreparedQueries } from '../db/prepared-queries.js';

export interface AuditFilter {
  /** A company id, or 'all' (SysAdmin). */
  scope: number | 'all';
  from?: string | undefined;
  to?: string | undefined;
  actorId?: number | undefined;
  actorName?: string | undefined;
  /** An exact action, or a prefix ending in '.'. */
  action?: string | undefined;
  objectType?: string | undefined;
  objectId?: string | undefined;
}

/** An audit row's columns, in the order the prepared insert takes them. */
const ROW_COLUMNS = ['seq', 'at', 'action', 'actor_id', 'actor_name', 'company_id', 'ip', 'user_agent', 'object_type', 'object_id', 'details', 'prev_hash', 'hash'] as const;

export class AuditRepository {
  // Every upload appends a row: its three statements are built once (db/prepared-queries.ts).
  readonly #prepared: PreparedQueries;

  constructor(private readonly db: Db) {
    this.#prepared = new PreparedQueries(db);
  }

  /**
   * Appends one row. The head row is updated first, in the same transaction: on PostgreSQL that
   * locks it until commit, and on SQLite the first statement being a write takes the write lock at
   * once, so concurrent appends (other requests, other nodes, the CLI) queue up and never fork.
   */
  append(row: Omit<ChainedFields, 'seq'>): Promise<AuditLogRow> {
    return this.db.transaction().execute((trx) => this.appendIn(trx, row));
  }

  /**
   * Appends one row inside the caller's transaction, so the row commits with what it records (an
   * upload's file row): one write transaction instead of two. The head is locked from here to the
   * caller's commit, so callers append last, after their own writes. On SQLite the caller's
   * transaction already holds the write lock once it has written; on PostgreSQL the update below
   * waits for any other append holding the head, and reads the head as that one left it.
   */
  async appendIn(trx: Db, row: Omit<ChainedFields, 'seq'>): Promise<AuditLogRow> {
    const [head] = await this.#prepared.rows<{ last_seq: number; last_hash: string }>(
      'advanceHead',
      [],
      () =>
        this.db
          .updateTable('audit_head')
          .set((eb) => ({ last_seq: eb('last_seq', '+', 1) }))
          .where('id', '=', 1)
          .returning(['last_seq', 'last_hash']),
      trx,
    );
    if (head === undefined) throw new Error('the audit chain has no head row');
    const fields: ChainedFields = { seq: head.last_seq, ...row };
    const stored: AuditLogRow = { ...fields, prev_hash: head.last_hash, hash: chainHash(head.last_hash, fields) };
    await this.#prepared.run(
      'insertRow',
      ROW_COLUMNS.map((column) => stored[column]),
      (v) => this.db.insertInto('audit_log').values(Object.fromEntries(ROW_COLUMNS.map((column, i) => [column, v[i]])) as unknown as AuditLogRow),
      trx,
    );
    await this.#prepared.run('setHeadHash', [stored.hash], ([hash]) => this.db.updateTable('audit_head').set({ last_hash: hash! }).where('id', '=', 1), trx);
    return stored;
  }

  head(): Promise<AuditHeadTable> {
    return this.db.selectFrom('audit_head').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
  }

  #filtered(filter: AuditFilter) {
    let query = this.db.selectFrom('audit_log');
    if (filter.scope !== 'all') query = query.where('company_id', '=', filter.scope);
    if (filter.from) query = query.where('at', '>=', filter.from);
    if (filter.to) query = query.where('at', '<', filter.to);
    if (filter.actorId !== undefined) query = query.where('actor_id', '=', filter.actorId);
    if (filter.actorName !== undefined) query = query.where('actor_name', '=', filter.actorName);
    if (filter.action?.endsWith('.')) query = query.where('action', 'like', `${filter.action.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    else if (filter.action) query = query.where('action', '=', filter.action);
    if (filter.objectType) query = query.where('object_type', '=', filter.objectType);
    if (filter.objectId) query = query.where('object_id', '=', filter.objectId);
    return query;
  }

  async count(filter: AuditFilter): Promise<number> {
    const row = await this.#filtered(filter)
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  page(filter: AuditFilter, order: 'asc' | 'desc', offset: number, limit: number): Promise<AuditLogRow[]> {
    return this.#filtered(filter).selectAll().orderBy('seq', order).offset(offset).limit(limit).execute();
  }

  /** Rows after `afterSeq` in seq order: walking the whole trail a batch at a time. */
  after(filter: AuditFilter, afterSeq: number, limit: number): Promise<AuditLogRow[]> {
    return this.#filtered(filter).selectAll().where('seq', '>', afterSeq).orderBy('seq', 'asc').limit(limit).execute();
  }

  /**
   * Removes the rows older than `before` and makes the last removed row's hash the anchor the
   * kept rows are verified from. Answers how many were removed.
   */
  async prune(before: string): Promise<{ removed: number; anchorSeq: number }> {
    return this.db.transaction().execute(async (trx) => {
      // Locks the head, as an append does, so no row is appended while the anchor moves.
      const head = await trx
        .updateTable('audit_head')
        .set((eb) => ({ anchor_seq: eb.ref('anchor_seq') }))
        .where('id', '=', 1)
        .returning(['anchor_seq'])
        .executeTakeFirstOrThrow();
      const last = await trx
        .selectFrom('audit_log')
        .select(['seq', 'hash'])
        .where('at', '<', before)
        .orderBy('seq', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (!last) return { removed: 0, anchorSeq: head.anchor_seq };
      const result = await trx.deleteFrom('audit_log').where('seq', '<=', last.seq).executeTakeFirst();
      await trx.updateTable('audit_head').set({ anchor_seq: last.seq, anchor_hash: last.hash }).where('id', '=', 1).execute();
      return { removed: Number(result.numDeletedRows), anchorSeq: last.seq };
    });
  }
}
