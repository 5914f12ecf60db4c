// People told (issue 35, item 3): the events a user may be e-mailed about, their choice of them,
// and the webhooks a CompanyAdmin or SysAdmin points at a receiver of their own, with its log.
import { z } from './zod.js';
import { listParams, ZListPage } from './common.js';
import { wholeNumber } from './fields.js';
import { ZRejectReason } from './file-review.js';

/** What happened to an upload or a delivery, as receivers and e-mails name it. */
export const NOTIFICATION_ACTIONS = ['completed', 'processed', 'accepted', 'rejected'] as const;
export type TNotificationAction = (typeof NOTIFICATION_ACTIONS)[number];

export const NOTIFICATION_EVENTS = [
  'upload.completed',
  'upload.processed',
  'upload.accepted',
  'upload.rejected',
  'delivery.completed',
  'delivery.processed',
  'delivery.accepted',
  'delivery.rejected',
] as const;
export const ZNotificationEvent = z.enum(NOTIFICATION_EVENTS, { error: `must be one of ${NOTIFICATION_EVENTS.join(', ')}` });
export type TNotificationEvent = z.infer<typeof ZNotificationEvent>;

const eventList = z
  .array(ZNotificationEvent)
  .max(NOTIFICATION_EVENTS.length)
  .transform((events) => [...new Set(events)]);

/** 'immediate': one e-mail per event; 'daily': one digest a day of everything since the last. */
export const NOTIFICATION_MODES = ['immediate', 'daily'] as const;
export type TNotificationMode = (typeof NOTIFICATION_MODES)[number];

export const ZNotificationPreferences = z.object({
  events: z.array(ZNotificationEvent).describe('The events of their projects this user is e-mailed about'),
  mode: z.enum(NOTIFICATION_MODES).describe('At once, or in a daily digest'),
  all_projects: z.boolean().describe('SysUser and SysAdmin only: the events of every company’s projects (every new delivery), not only their own company’s'),
  email: z.string().nullable().describe('Where the e-mails go; null: the account has none, so nothing is sent'),
  mail_configured: z.boolean().describe('Whether the portal can send e-mail at all (SMTP_URL)'),
});
export type TNotificationPreferences = z.infer<typeof ZNotificationPreferences>;

export const ZUpdateNotificationPreferences = z.strictObject({
  events: eventList,
  mode: z.enum(NOTIFICATION_MODES, { error: `must be ${NOTIFICATION_MODES.join(' or ')}` }),
  all_projects: z.boolean().default(false),
});
export type TUpdateNotificationPreferences = z.input<typeof ZUpdateNotificationPreferences>;

export const WEBHOOK_URL_MAX = 2048;

export const ZWebhook = z.object({
  id: z.number().int(),
  company_id: z.number().int().nullable().describe('The company whose events it hears; null: every company’s (SysAdmin)'),
  url: z.string(),
  events: z.array(ZNotificationEvent),
  created_at: z.string(),
});
export type TWebhook = z.infer<typeof ZWebhook>;

/** The answer to its creation, the only one that carries the signing secret. */
export const ZCreatedWebhook = ZWebhook.extend({
  secret: z.string().describe('The Standard Webhooks signing secret (whsec_…): shown this once, never again'),
});
export type TCreatedWebhook = z.infer<typeof ZCreatedWebhook>;

export const ZCreateWebhook = z.strictObject({
  url: z
    .string()
    .trim()
    .min(1, { error: 'The address is required' })
    .max(WEBHOOK_URL_MAX, { error: `The address must be at most ${WEBHOOK_URL_MAX} characters` })
    .describe('Where the events are POSTed; https'),
  events: eventList.refine((events) => events.length > 0, { error: 'Choose at least one event' }),
  company_id: z
    .number()
    .int()
    .positive()
    .nullable()
    .optional()
    .describe('SysAdmin: the company whose events it hears, or null (the default) for every company’s; a CompanyAdmin’s is always their own'),
});
export type TCreateWebhook = z.input<typeof ZCreateWebhook>;

export const ZWebhooksQuery = z.object({
  company_id: wholeNumber(1, 2_147_483_647, 'must be a company id').optional().describe('SysAdmin: only this company’s endpoints'),
});

export const WEBHOOK_DELIVERY_STATES = ['pending', 'retrying', 'delivered', 'failed'] as const;

export const ZWebhookDelivery = z.object({
  id: z.number().int(),
  webhook_id: z.number().int(),
  event: ZNotificationEvent,
  message_id: z.string().describe('The webhook-id header: the same on every attempt'),
  status: z.enum(WEBHOOK_DELIVERY_STATES),
  attempts: z.number().int(),
  last_status_code: z.number().int().nullable().describe('The receiver’s last HTTP status; null when none answered'),
  last_error: z.string().nullable().describe('Why the last attempt failed, in words'),
  created_at: z.string(),
  updated_at: z.string(),
  delivered_at: z.string().nullable(),
});
export type TWebhookDelivery = z.infer<typeof ZWebhookDelivery>;

export const ZWebhookDeliveriesQuery = z.object({ page: listParams.page, per_page: listParams.per_page });
export const ZWebhookDeliveriesList = z.object({ data: z.array(ZWebhookDelivery), page: ZListPage });

/**
 * The body every receiver gets (Standard Webhooks: type, timestamp, data). Ids, names, counts and
 * states only: never a patient's name or id.
 */
export const ZWebhookBody = z.object({
  type: ZNotificationEvent,
  timestamp: z.string(),
  data: z.object({
    file_id: z.number().int(),
    kind: z.enum(['upload', 'delivery']),
    file_name: z.string(),
    size: z.number(),
    project: z.object({ id: z.number().int(), name: z.string() }),
    company: z.object({ id: z.number().int(), name: z.string() }),
    processing: z.object({
      status: z.string(),
      studies: z.number().int().optional(),
      series: z.number().int().optional(),
      instances: z.number().int().optional(),
    }),
    review: z
      .object({
        decision: z.enum(['accepted', 'rejected']),
        /** A rejection's reason, as the sender reads it in the files table. */
        reason: z.object({ code: ZRejectReason, text: z.string() }).optional(),
      })
      .optional(),
  }),
});
export type TWebhookBody = z.infer<typeof ZWebhookBody>;
