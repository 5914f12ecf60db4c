// The reactions to what happens to an upload or a delivery (wired by name in services.ts): each
// finds who listens to the event in the file's company, and leaves a message per webhook endpoint
// and an e-mail line per user, each with its job, for the queue to send. Nothing is sent here: the
// announcer waits for its reactions, and an upload's answer must not wait for a receiver. A
// failure here is reported, never thrown: the upload or the job that announced it has succeeded.
import { randomUUID } from 'node:crypto';
import type { TNotificationAction } from '@portal/contract';
import { eventName, kindOf, mailSentence, webhookBody, type EventKind } from './event-message.js';
import type { NotificationsRepository } from './notifications.repository.js';

export interface NotifierOptions {
  /** Whether e-mail can be sent at all (SMTP_URL): without it no e-mail line is kept. */
  mailConfigured: boolean;
  /** PUBLIC_URL: e-mails link to the project when set. */
  publicUrl: string | undefined;
  warn: (error: unknown, message: string) => void;
}

export class Notifier {
  constructor(
    private readonly repo: NotificationsRepository,
    private readonly options: NotifierOptions,
  ) {}

  /** 'file.uploaded' and 'delivery.completed': a file row was committed. */
  async completed(file: { id: number; company_id: number; kind: string }): Promise<void> {
    await this.#tell(file.id, file.company_id, 'completed', kindOf(file.kind));
  }

  /** 'file.processed' (ready) and 'file.failed': processing ended, either way. */
  async processed(fileId: number, companyId: number): Promise<void> {
    await this.#tell(fileId, companyId, 'processed');
  }

  /** 'file.reviewed' (review/): the receiving team accepted or rejected the upload or delivery. */
  async reviewed(fileId: number, companyId: number, decision: 'accepted' | 'rejected'): Promise<void> {
    await this.#tell(fileId, companyId, decision, undefined, decision);
  }

  async #tell(fileId: number, companyId: number, action: TNotificationAction, knownKind?: EventKind, decision?: 'accepted' | 'rejected'): Promise<void> {
    try {
      const listeners = await this.repo.listeners(companyId);
      const hears = (events: string[]) => (knownKind ? events.includes(eventName(knownKind, action)) : events.some((e) => e.endsWith(`.${action}`)));
      // Most events are heard by nobody: the file is read only when someone listens.
      if (!listeners.endpoints.some((e) => hears(e.events)) && !listeners.recipients.some((r) => hears(r.events))) return;
      const file = await this.repo.describe(fileId);
      if (!file || file.company_id !== companyId) return;
      const event = eventName(kindOf(file.kind), action);
      const endpoints = listeners.endpoints.filter((e) => e.events.includes(event)).map((e) => e.id);
      const recipients = this.options.mailConfigured ? listeners.recipients.filter((r) => r.events.includes(event)) : [];
      if (endpoints.length === 0 && recipients.length === 0) return;
      const link = this.options.publicUrl ? ` ${this.options.publicUrl}/study/${file.project_id}` : '';
      const line = mailSentence(file, event) + link;
      await this.repo.fanOut({
        event,
        companyId,
        fileId,
        payload: JSON.stringify(webhookBody(file, event, new Date(), decision)),
        messageId: () => `msg_${randomUUID().replaceAll('-', '')}`,
        endpoints,
        mails: recipients.map((r) => ({ userId: r.userId, mode: r.mode, line })),
      });
    } catch (error) {
      this.options.warn(error, `queueing the notifications of file ${fileId} (${action}) failed`);
    }
  }
}
