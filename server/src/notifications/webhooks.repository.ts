// The webhook endpoints and their log. Every read a CompanyAdmin can reach takes the company it is
// scoped to, so another company's endpoint is never read (and answers 404).
import type { Db } from '../db/database.js';
import { nowIso } from '../db/database.js';
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../db/schema.js';

/** 'all': a SysAdmin's view; a number: that company's endpoints only. */
export type EndpointScope = number | 'all';

export interface NewEndpoint {
  company_id: number | null;
  url: string;
  events: string[];
  created_by: number;
}

export class WebhooksRepository {
  constructor(private readonly db: Db) {}

  list(scope: EndpointScope, companyId?: number): Promise<WebhookEndpointRow[]> {
    let query = this.db.selectFrom('webhook_endpoints').selectAll().orderBy('id');
    if (scope !== 'all') query = query.where('company_id', '=', scope);
    else if (companyId !== undefined) query = query.where('company_id', '=', companyId);
    return query.execute();
  }

  find(scope: EndpointScope, id: number): Promise<WebhookEndpointRow | undefined> {
    let query = this.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id);
    if (scope !== 'all') query = query.where('company_id', '=', scope);
    return query.executeTakeFirst();
  }

  /**
   * Inserts the endpoint, then stores its secret sealed to its own id (`seal` is given the id), in
   * one transaction: no endpoint exists without its secret.
   */
  async create(endpoint: NewEndpoint, seal: (id: number) => string): Promise<WebhookEndpointRow> {
    return this.db.transaction().execute(async (trx) => {
      const inserted = await trx
        .insertInto('webhook_endpoints')
        .values({ ...endpoint, events: JSON.stringify(endpoint.events), secret_sealed: '', created_at: nowIso() })
        .returning('id')
        .executeTakeFirstOrThrow();
      return trx
        .updateTable('webhook_endpoints')
        .set({ secret_sealed: seal(inserted.id) })
        .where('id', '=', inserted.id)
        .returningAll()
        .executeTakeFirstOrThrow();
    });
  }

  /** The endpoint and its log go together; a message still queued finds no endpoint and ends. */
  async remove(id: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
      await trx.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
    });
  }

  async deliveries(endpointId: number, page: number, perPage: number): Promise<{ rows: WebhookDeliveryRow[]; total: number }> {
    const [rows, count] = await Promise.all([
      this.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('endpoint_id', '=', endpointId)
        .orderBy('id', 'desc')
        .limit(perPage)
        .offset((page - 1) * perPage)
        .execute(),
      this.db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('endpoint_id', '=', endpointId)
        .executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  }

  /** A message with where it goes, for an attempt; undefined when its endpoint was deleted. */
  forSending(deliveryId: number) {
    return this.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .select(['d.id', 'd.endpoint_id', 'd.message_id', 'd.payload', 'd.status', 'd.attempts', 'd.created_at', 'e.url', 'e.secret_sealed'])
      .where('d.id', '=', deliveryId)
      .executeTakeFirst();
  }

  async recordAttempt(
    deliveryId: number,
    outcome: { status: WebhookDeliveryRow['status']; statusCode: number | null; error: string | null; at: Date },
  ): Promise<void> {
    const at = nowIso(outcome.at);
    await this.db
      .updateTable('webhook_deliveries')
      .set((eb) => ({
        status: outcome.status,
        attempts: eb('attempts', '+', 1),
        last_status_code: outcome.statusCode,
        last_error: outcome.error?.slice(0, 512) ?? null,
        updated_at: at,
        ...(outcome.status === 'delivered' ? { delivered_at: at } : {}),
      }))
      .where('id', '=', deliveryId)
      .execute();
  }

  /** The queue gave up on it (its last attempt failed). */
  async markFailed(deliveryId: number): Promise<void> {
    await this.db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', updated_at: nowIso() })
      .where('id', '=', deliveryId)
      .where('status', '!=', 'delivered')
      .execute();
  }
}
