// The audit trail (issue 15): who did what, to what, when and from where. Services call record()
// where an action happens; the request's actor, address and user agent come from the audit context.
import { Readable } from 'node:stream';
import { LIST_PER_PAGE_DEFAULT, type TAuditEntry, type TAuditQuery } from '@portal/contract';
import { nowIso } from '../db/database.js';
import type { AuditLogRow } from '../db/schema.js';
import { checkLinks, type ChainBreak, type ChainedFields } from './audit-chain.js';
import { currentAuditContext, type AuditActor } from './audit-context.js';
import { CSV_HEADER, csvLine } from './audit-csv.js';
import type { Db } from '../db/database.js';
import type { AuditFilter, AuditRepository } from './audit.repository.js';

export type AuditAction =
  | 'login.success'
  | 'login.failure'
  | 'login.throttled'
  | 'logout'
  | 'password.changed'
  | 'password.reset_link_created'
  | 'password.reset_link_used'
  | 'password.forgot_requested'
  | 'user.created'
  | 'user.changed'
  | 'user.disabled'
  | 'user.enabled'
  | 'company.created'
  | 'company.changed'
  | 'project.created'
  | 'project.renamed'
  | 'project.deleted'
  | 'project.deidentification_changed'
  | 'upload.completed'
  | 'file.downloaded'
  | 'entry.downloaded'
  | 'file.deleted'
  | 'delivery.deleted'
  | 'file.purged'
  | 'delivery.purged'
  | 'audit.pruned'
  | 'webhook.created'
  | 'webhook.deleted'
  // Issue 35: the review of what arrives.
  | 'project.rules_changed'
  | 'file.rules_checked'
  | 'file.accepted'
  | 'file.rejected'
  | 'file.replaced'
  // Issue 37: personal API tokens (never their secrets).
  | 'api_token.created'
  | 'api_token.new_address'
  | 'api_token.revoked'
  // Issue 37: two-factor sign-in (never the secret nor a code).
  | 'two_factor.enabled'
  | 'two_factor.disabled'
  | 'two_factor.recovery_code_used'
  | 'two_factor.recovery_codes_regenerated'
  | 'two_factor.reset'
  // Issue 37: the virus scan found a file infected (processing, with the signature's name).
  | 'file.infected';

type Detail = string | number | boolean | null;

export interface AuditEvent {
  action: AuditAction;
  /** The company the object belongs to (what a CompanyAdmin's view of the trail is scoped by). */
  companyId: number | null;
  object?: { type: string; id: number | string } | undefined;
  /** Names, sizes, digests: never a password, token or link (keys naming one are dropped). */
  details?: Record<string, Detail | undefined> | undefined;
  /** Who acted, when it is not the request's signed-in user (a sign-in, the command line). */
  actor?: AuditActor | undefined;
}

/** A key that names a secret is dropped whatever its value, so a careless caller cannot leak one. */
const SECRET_KEY = /pass|token|secret|reset_url|link|hash$/i;
const MAX_TEXT = 512;

function cleanDetails(details: AuditEvent['details']): string | null {
  if (!details) return null;
  const kept = Object.entries(details).filter(([key, value]) => value !== undefined && !SECRET_KEY.test(key));
  return kept.length ? JSON.stringify(Object.fromEntries(kept)) : null;
}

const clip = (text: string | null | undefined, max = MAX_TEXT) => (text ? text.slice(0, max) : null);

export function presentAuditRow(row: AuditLogRow): TAuditEntry {
  return {
    seq: row.seq,
    at: row.at,
    action: row.action,
    actor_id: row.actor_id,
    actor_name: row.actor_name,
    company_id: row.company_id,
    ip: row.ip,
    user_agent: row.user_agent,
    object_type: row.object_type,
    object_id: row.object_id,
    details: row.details ? (JSON.parse(row.details) as Record<string, unknown>) : null,
    hash: row.hash,
  };
}

const BATCH = 1000;

/** The row an event becomes, with the request's actor, address and user agent. */
function auditRow(event: AuditEvent): Omit<ChainedFields, 'seq'> {
  const context = currentAuditContext();
  const actor = event.actor ?? context.actor;
  return {
    at: nowIso(),
    action: event.action,
    actor_id: actor?.id ?? null,
    actor_name: clip(actor?.name, 255),
    company_id: event.companyId,
    ip: clip(context.ip, 64),
    user_agent: clip(context.userAgent),
    object_type: event.object?.type ?? null,
    object_id: event.object ? String(event.object.id) : null,
    details: cleanDetails(event.details),
  };
}

export class AuditTrail {
  constructor(private readonly repo: AuditRepository) {}

  async record(event: AuditEvent): Promise<void> {
    await this.repo.append(auditRow(event));
  }

  /**
   * The same row, written in the caller's transaction so that it commits (or not) with the change
   * it records. Call it after the transaction's own writes: the chain's head stays locked until commit.
   */
  async recordIn(trx: Db, event: AuditEvent): Promise<void> {
    await this.repo.appendIn(trx, auditRow(event));
  }

  async list(filter: AuditFilter, query: TAuditQuery) {
    const page = query.page ?? 1;
    const perPage = query.per_page ?? LIST_PER_PAGE_DEFAULT;
    const [rows, total] = await Promise.all([
      this.repo.page(filter, query.order ?? 'desc', (page - 1) * perPage, perPage),
      this.repo.count(filter),
    ]);
    return { data: rows.map(presentAuditRow), page: { page, per_page: perPage, total } };
  }

  /** Every matching row, oldest first, as CSV read from the database a batch at a time. */
  csv(filter: AuditFilter): Readable {
    const repo = this.repo;
    async function* lines() {
      yield CSV_HEADER;
      let after = 0;
      for (;;) {
        const rows = await repo.after(filter, after, BATCH);
        if (rows.length === 0) return;
        yield rows.map((row) => csvLine(presentAuditRow(row))).join('');
        after = rows[rows.length - 1]!.seq;
      }
    }
    return Readable.from(lines());
  }

  /** Walks the whole chain from its anchor; answers the first broken link, if any. */
  async verify(): Promise<{ rows: number; break?: ChainBreak }> {
    const head = await this.repo.head();
    let prev = head.anchor_hash;
    let after = head.anchor_seq;
    let rows = 0;
    for (;;) {
      const batch = await this.repo.after({ scope: 'all' }, after, BATCH);
      if (batch.length === 0) break;
      const checked = checkLinks(batch, prev);
      if (checked.break) return { rows, break: checked.break };
      rows += batch.length;
      prev = checked.last;
      after = batch[batch.length - 1]!.seq;
    }
    if (prev !== head.last_hash || after !== head.last_seq) {
      return { rows, break: { seq: after + 1, reason: `the newest rows are missing: the chain ends at ${after}, its head at ${head.last_seq}` } };
    }
    return { rows };
  }

  /** The only way rows leave the trail; the prune itself is the next row. */
  async prune(before: string, actor: AuditActor): Promise<number> {
    const { removed, anchorSeq } = await this.repo.prune(before);
    await this.record({ action: 'audit.pruned', companyId: null, actor, details: { before, removed, anchor_seq: anchorSeq } });
    return removed;
  }
}
