// Webhook endpoints as their administrators see them: a CompanyAdmin's company's, a SysAdmin's of
// every company and the portal-wide ones. The signing secret is answered once, at creation; it is
// kept sealed, and never logged or audited.
import { LIST_PER_PAGE_DEFAULT, ROLES, type TCreatedWebhook, type TNotificationEvent, type TWebhook, type TWebhookDelivery } from '@portal/contract';
import type { z } from 'zod';
import type { ZCreateWebhook } from '@portal/contract';
import type { AuditTrail } from '../audit/index.js';
import type { Actor } from '../auth/index.js';
import type { CompaniesRepository } from '../companies/index.js';
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../db/schema.js';
import { forbidden, notFound, unprocessable } from '../errors/app-error.js';
import type { SecretBox } from '../sso/index.js';
import { checkPublicHost, PrivateAddressRefused } from './webhook-address.js';
import { newWebhookSecret, webhookSecretBinding } from './webhook-secret.js';
import type { EndpointScope, WebhooksRepository } from './webhooks.repository.js';

type CreateWebhook = z.output<typeof ZCreateWebhook>;

const NOT_FOUND = 'Webhook not found';

export class WebhooksAdministration {
  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly companies: CompaniesRepository,
    private readonly audit: AuditTrail,
    private readonly box: SecretBox,
    private readonly options: { allowPrivate: boolean },
  ) {}

  async list(actor: Actor, query: { company_id?: number | undefined }): Promise<TWebhook[]> {
    const scope = adminScope(actor);
    if (scope !== 'all' && query.company_id !== undefined && query.company_id !== scope) throw notFound('Company not found');
    return (await this.webhooks.list(scope, query.company_id)).map(presentWebhook);
  }

  async create(actor: Actor, body: CreateWebhook): Promise<TCreatedWebhook> {
    const scope = adminScope(actor);
    const companyId = await this.#companyOf(actor, scope, body.company_id);
    const url = await this.#checkedUrl(body.url);
    const secret = newWebhookSecret();
    const row = await this.webhooks.create({ company_id: companyId, url, events: body.events, created_by: actor.userId }, (id) =>
      this.box.sealBound(secret, webhookSecretBinding(id)),
    );
    await this.audit.record({
      action: 'webhook.created',
      companyId,
      object: { type: 'webhook', id: row.id },
      // The host only: a receiver's path may carry a credential of its own.
      details: { host: new URL(url).host, events: body.events.join(','), portal_wide: companyId === null },
    });
    return { ...presentWebhook(row), secret };
  }

  async remove(actor: Actor, id: number): Promise<void> {
    const row = await this.#require(actor, id);
    await this.webhooks.remove(row.id);
    await this.audit.record({
      action: 'webhook.deleted',
      companyId: row.company_id,
      object: { type: 'webhook', id: row.id },
      details: { host: new URL(row.url).host, portal_wide: row.company_id === null },
    });
  }

  async deliveries(actor: Actor, id: number, query: { page?: number | undefined; per_page?: number | undefined }) {
    const row = await this.#require(actor, id);
    const page = query.page ?? 1;
    const perPage = query.per_page ?? LIST_PER_PAGE_DEFAULT;
    const { rows, total } = await this.webhooks.deliveries(row.id, page, perPage);
    return { data: rows.map(presentDelivery), page: { page, per_page: perPage, total } };
  }

  async #require(actor: Actor, id: number): Promise<WebhookEndpointRow> {
    const row = await this.webhooks.find(adminScope(actor), id);
    if (!row) throw notFound(NOT_FOUND);
    return row;
  }

  /** The company the new endpoint hears: a CompanyAdmin's own always; a SysAdmin's choice, or null for every company. */
  async #companyOf(actor: Actor, scope: EndpointScope, asked: number | null | undefined): Promise<number | null> {
    if (scope !== 'all') {
      if (asked === null) throw forbidden('Only a SysAdmin creates a webhook that hears every company');
      if (asked !== undefined && asked !== scope) throw notFound('Company not found');
      return scope;
    }
    if (asked === undefined || asked === null) return null;
    if (!(await this.companies.findById(asked, 'all'))) throw notFound('Company not found');
    return asked;
  }

  async #checkedUrl(text: string): Promise<string> {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw unprocessable('The address must be a full web address, such as https://hooks.example.org/portal');
    }
    const allowed = this.options.allowPrivate ? ['https:', 'http:'] : ['https:'];
    if (!allowed.includes(url.protocol)) throw unprocessable('The address must start with https:// (such as https://hooks.example.org/portal)');
    if (url.username || url.password) throw unprocessable('The address must not carry a user name or password; the receiver checks the signature instead');
    if (url.hash) throw unprocessable('The address must not have a #fragment');
    if (!this.options.allowPrivate) {
      try {
        await checkPublicHost(url);
      } catch (error) {
        if (error instanceof PrivateAddressRefused) throw unprocessable(error.message);
        throw unprocessable(`The host name ${url.hostname} could not be found; check the address`);
      }
    }
    return url.toString();
  }
}

/** SysAdmin: every endpoint; CompanyAdmin: their company's; anyone else: refused. */
function adminScope(actor: Actor): EndpointScope {
  if (actor.role === ROLES.SysAdmin) return 'all';
  if (actor.role === ROLES.CompanyAdmin) return actor.companyId;
  throw forbidden('Only a CompanyAdmin or a SysAdmin manages webhooks');
}

function presentWebhook(row: WebhookEndpointRow): TWebhook {
  return { id: row.id, company_id: row.company_id, url: row.url, events: JSON.parse(row.events) as TNotificationEvent[], created_at: row.created_at };
}

function presentDelivery(row: WebhookDeliveryRow): TWebhookDelivery {
  return {
    id: row.id,
    webhook_id: row.endpoint_id,
    event: row.event as TNotificationEvent,
    message_id: row.message_id,
    status: row.status,
    attempts: row.attempts,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    created_at: row.created_at,
    updated_at: row.updated_at,
    delivered_at: row.delivered_at,
  };
}
