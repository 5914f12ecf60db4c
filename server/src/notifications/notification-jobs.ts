// The queue's kinds for telling people (definitions only: enqueuing imports these, never the code
// that runs them, in notification-job-kinds.ts).
import { z } from 'zod';
import { jobType } from '../jobs/index.js';

/** One message to one webhook endpoint (a row of webhook_deliveries), retried with backoff for a day. */
export const DELIVER_WEBHOOK = jobType(
  'deliver-webhook',
  z.object({ deliveryId: z.number().int().positive(), endpointId: z.number().int().positive() }),
  (p) => `webhook-deliveries/${p.deliveryId}`,
  // Each endpoint takes its turn: one slow receiver does not hold back another's messages.
  (p) => `webhooks/${p.endpointId}`,
);

/** One e-mail sent at once (a row of notification_mails). */
export const SEND_NOTIFICATION_MAIL = jobType(
  'send-notification-mail',
  z.object({ mailId: z.number().int().positive() }),
  (p) => `notification-mails/${p.mailId}`,
);

/** The day's digest e-mails: one per user with lines waiting; its subject names the day, so it runs once a day. */
export const SEND_DIGEST = jobType(
  'send-notification-digest',
  z.object({ day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/) }),
  (p) => `notification-digest/${p.day}`,
);
