// The hash chain of the audit trail: each row's hash is SHA-256 over the previous row's hash and the
// row's own fields in a fixed order, so changing, inserting or removing a row breaks every later link.
import { createHash } from 'node:crypto';
import type { AuditLogRow } from '../db/schema.js';

/** The hash "before" the first row ever written. */
export const GENESIS_HASH = '0'.repeat(64);

export type ChainedFields = Omit<AuditLogRow, 'hash' | 'prev_hash'>;

/** The row's fields as one JSON array, in column order: the same text on both engines. */
export function canonicalRow(row: ChainedFields): string {
  return JSON.stringify([
    row.seq,
    row.at,
    row.action,
    row.actor_id,
    row.actor_name,
    row.company_id,
    row.ip,
    row.user_agent,
    row.object_type,
    row.object_id,
    row.details,
  ]);
}

export function chainHash(prevHash: string, row: ChainedFields): string {
  return createHash('sha256').update(prevHash).update('\n').update(canonicalRow(row)).digest('hex');
}

export interface ChainBreak {
  seq: number;
  reason: string;
}

/**
 * Checks rows (in seq order, in batches) from `expectedPrev` on; answers the first break, or the
 * hash the last row ends with.
 */
export function checkLinks(rows: AuditLogRow[], expectedPrev: string): { break?: ChainBreak; last: string } {
  let prev = expectedPrev;
  for (const row of rows) {
    if (row.prev_hash !== prev) return { break: { seq: row.seq, reason: 'its previous-hash does not match the row before it (a row was removed or inserted)' }, last: prev };
    const { hash, prev_hash: _prev, ...fields } = row;
    if (chainHash(prev, fields) !== hash) return { break: { seq: row.seq, reason: 'its contents do not match its hash (the row was changed)' }, last: prev };
    prev = hash;
  }
  return { last: prev };
}
