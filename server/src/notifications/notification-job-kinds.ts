// The code the queue runs for notifications/ (the definitions are in notification-jobs.ts).
import type { JobKind } from '../jobs/index.js';
import { defineJobKind } from '../jobs/index.js';
import { nowIso } from '../db/database.js';
import type { Mailer } from '../mail/mailer.js';
import type { SecretBox } from '../sso/index.js';
import { mailSubject } from './event-message.js';
import { DELIVER_WEBHOOK, SEND_DIGEST, SEND_NOTIFICATION_MAIL } from './notification-jobs.js';
import type { NotificationsRepository } from './notifications.repository.js';
import { webhookSecretBinding } from './webhook-secret.js';
import { attemptDelivery } from './webhook-sender.js';
import type { WebhooksRepository } from './webhooks.repository.js';

/** Retries stop after a day (Standard Webhooks' advice: about a day of retries, with backoff). */
export const WEBHOOK_RETRY_WINDOW_MS = 24 * 3_600_000;
/** The first attempt and ten retries: with the default 90 s base, the last one about 25.6 h after the first. */
export const WEBHOOK_MAX_ATTEMPTS = 11;

export interface WebhookJobDeps {
  webhooks: WebhooksRepository;
  box: SecretBox;
  allowPrivate: boolean;
  timeoutMs: number;
  retryBaseMs: number;
}

export function deliverWebhookJob(deps: WebhookJobDeps): JobKind<{ deliveryId: number; endpointId: number }> {
  return defineJobKind(DELIVER_WEBHOOK, {
    handle: async ({ deliveryId }, { attempt, signal }) => {
      const message = await deps.webhooks.forSending(deliveryId);
      // Its endpoint was deleted, or an earlier run ended it.
      if (!message || message.status === 'delivered' || message.status === 'failed') return;
      const now = new Date();
      let secret: string;
      try {
        secret = deps.box.openBound(message.secret_sealed, webhookSecretBinding(message.endpoint_id));
      } catch {
        const error = 'The endpoint’s secret can no longer be read (the server’s key changed): delete the endpoint and create it again';
        await deps.webhooks.recordAttempt(deliveryId, { status: 'failed', statusCode: null, error, at: now });
        return;
      }
      const result = await attemptDelivery(
        { url: message.url, secret, messageId: message.message_id, payload: message.payload },
        { allowPrivate: deps.allowPrivate, timeoutMs: deps.timeoutMs, now, signal },
      );
      // Stopped mid-attempt: the runner hands the job back; this attempt is not counted.
      signal.throwIfAborted();
      if (result.ok) {
        await deps.webhooks.recordAttempt(deliveryId, { status: 'delivered', statusCode: result.statusCode, error: null, at: now });
        return;
      }
      const last = attempt >= WEBHOOK_MAX_ATTEMPTS || now.getTime() - Date.parse(message.created_at) >= WEBHOOK_RETRY_WINDOW_MS;
      await deps.webhooks.recordAttempt(deliveryId, { status: last ? 'failed' : 'retrying', statusCode: result.statusCode, error: result.error, at: now });
      // Thrown for the queue to retry it after its backoff; the words are the log's, never the secret.
      if (!last) throw new Error(result.error ?? 'the receiver did not accept the message');
    },
    onGiveUp: ({ deliveryId }) => deps.webhooks.markFailed(deliveryId),
    maxAttempts: WEBHOOK_MAX_ATTEMPTS,
    backoffMs: deps.retryBaseMs,
  });
}

export interface MailJobDeps {
  notifications: NotificationsRepository;
  mailer: Mailer | undefined;
}

const SIGNATURE = 'You get this e-mail because of your choices under Notifications, in the avatar menu of the Secure Upload Portal.';

export function sendNotificationMailJob(deps: MailJobDeps): JobKind<{ mailId: number }> {
  return defineJobKind(SEND_NOTIFICATION_MAIL, {
    handle: async ({ mailId }) => {
      const mail = await deps.notifications.mail(mailId);
      if (!mail) return;
      if (deps.mailer && mail.email && mail.disabled === 0) {
        await deps.mailer.send({ to: [mail.email], subject: mailSubject(mail.event), text: `Hello ${mail.firstname},\n\n${mail.line}\n\n${SIGNATURE}\n` });
      }
      await deps.notifications.deleteMails([mail.id]);
    },
    // The SMTP server kept refusing it: it is not kept for ever.
    onGiveUp: ({ mailId }) => deps.notifications.deleteMails([mailId]),
    // One lane: e-mails are few and quick, and every idle lane polls the queue.
    concurrency: 1,
  });
}

export function sendDigestJob(deps: MailJobDeps): JobKind<{ day: string }> {
  return defineJobKind(SEND_DIGEST, {
    handle: async ({ day }, { signal }) => {
      const before = nowIso();
      // User by user, each one's lines removed once sent: a retry sends only to those still waiting.
      for (const userId of await deps.notifications.digestUsers(before)) {
        signal.throwIfAborted();
        const { lines, user } = await deps.notifications.digestOf(userId, before);
        if (deps.mailer && user?.email && user.disabled === 0 && lines.length > 0) {
          const body = lines.map((l) => `- ${l.created_at.slice(0, 16).replace('T', ' ')} UTC: ${l.line}`).join('\n');
          await deps.mailer.send({
            to: [user.email],
            subject: `Secure Upload Portal: your daily digest for ${day} (${lines.length} event${lines.length === 1 ? '' : 's'})`,
            text: `Hello ${user.firstname},\n\nWhat happened in your projects since the last digest:\n\n${body}\n\n${SIGNATURE}\n`,
          });
        }
        await deps.notifications.deleteMails(lines.map((l) => l.id));
      }
    },
    // Lines not sent wait for the next day's digest.
    onGiveUp: () => Promise.resolve(),
    concurrency: 1,
  });
}
