// What telling people reads and writes besides the endpoints themselves: users' choices, who
// listens to a company's events, the file an event is about, and the e-mails waiting to go.
import { ROLES } from '@portal/contract';
import type { Db } from '../db/database.js';
import { nowIso } from '../db/database.js';
import type { NotificationMailRow } from '../db/schema.js';
import { enqueueJob } from '../jobs/index.js';
import { DELIVER_WEBHOOK, SEND_NOTIFICATION_MAIL } from './notification-jobs.js';

export interface Preferences {
  events: string[];
  mode: 'immediate' | 'daily';
  all_projects: boolean;
}

/** A file as an event tells of it, with the names of its project and company. */
export type DescribedFile = NonNullable<Awaited<ReturnType<NotificationsRepository['describe']>>>;

export interface Listeners {
  endpoints: { id: number; events: string[] }[];
  recipients: { userId: number; events: string[]; mode: 'immediate' | 'daily' }[];
}

/** What one event leaves to send: a message per endpoint, an e-mail line per user. */
export interface Fanout {
  event: string;
  companyId: number;
  fileId: number;
  payload: string;
  messageId: (endpointId: number) => string;
  endpoints: number[];
  mails: { userId: number; mode: 'immediate' | 'daily'; line: string }[];
}

const parseEvents = (text: string): string[] => {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
};

export class NotificationsRepository {
  constructor(private readonly db: Db) {}

  async preferences(userId: number): Promise<Preferences | undefined> {
    const row = await this.db.selectFrom('notification_preferences').selectAll().where('user_id', '=', userId).executeTakeFirst();
    return row && { events: parseEvents(row.events), mode: row.mode, all_projects: row.all_projects === 1 };
  }

  async savePreferences(userId: number, prefs: Preferences): Promise<void> {
    const values = { events: JSON.stringify(prefs.events), mode: prefs.mode, all_projects: prefs.all_projects ? 1 : 0, updated_at: nowIso() };
    await this.db
      .insertInto('notification_preferences')
      .values({ user_id: userId, ...values })
      .onConflict((oc) => oc.column('user_id').doUpdateSet(values))
      .execute();
  }

  /**
   * Who hears an event of `companyId`: its own endpoints and the portal-wide ones; its own users
   * (enabled, with an e-mail address) and the SysUsers and SysAdmins who follow every company.
   */
  async listeners(companyId: number): Promise<Listeners> {
    const [endpoints, recipients] = await Promise.all([
      this.db
        .selectFrom('webhook_endpoints')
        .select(['id', 'events'])
        .where((eb) => eb.or([eb('company_id', '=', companyId), eb('company_id', 'is', null)]))
        .execute(),
      this.db
        .selectFrom('notification_preferences as p')
        .innerJoin('users as u', 'u.id', 'p.user_id')
        .select(['u.id', 'p.events', 'p.mode'])
        .where('u.disabled', '=', 0)
        .where('u.email', 'is not', null)
        .where((eb) =>
          eb.or([eb('u.company_id', '=', companyId), eb.and([eb('p.all_projects', '=', 1), eb('u.role', 'in', [ROLES.SysUser, ROLES.SysAdmin])])]),
        )
        .execute(),
    ]);
    return {
      endpoints: endpoints.map((e) => ({ id: e.id, events: parseEvents(e.events) })),
      recipients: recipients.map((r) => ({ userId: r.id, events: parseEvents(r.events), mode: r.mode })),
    };
  }

  describe(fileId: number) {
    return this.db
      .selectFrom('project_files as f')
      .innerJoin('projects as p', 'p.id', 'f.project_id')
      .innerJoin('companies as c', 'c.id', 'f.company_id')
      .select([
        'f.id',
        'f.file',
        'f.filesize',
        'f.kind',
        'f.company_id',
        'f.project_id',
        'f.processing_status',
        'f.processing_error',
        'f.processing_summary',
        'f.review_reason',
        'f.review_note',
        'f.deleted_at',
        'p.name as project_name',
        'c.companyname',
      ])
      .where('f.id', '=', fileId)
      .executeTakeFirst();
  }

  /** The messages and e-mails of one event, each with its job, in one transaction. */
  async fanOut(out: Fanout): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const at = nowIso();
      for (const endpointId of out.endpoints) {
        const row = await trx
          .insertInto('webhook_deliveries')
          .values({
            endpoint_id: endpointId,
            company_id: out.companyId,
            event: out.event,
            message_id: out.messageId(endpointId),
            payload: out.payload,
            status: 'pending',
            attempts: 0,
            created_at: at,
            updated_at: at,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        await enqueueJob(trx, DELIVER_WEBHOOK, { deliveryId: row.id, endpointId });
      }
      for (const mail of out.mails) {
        const row = await trx
          .insertInto('notification_mails')
          .values({ user_id: mail.userId, company_id: out.companyId, event: out.event, file_id: out.fileId, mode: mail.mode, line: mail.line, created_at: at })
          .returning('id')
          .executeTakeFirstOrThrow();
        if (mail.mode === 'immediate') await enqueueJob(trx, SEND_NOTIFICATION_MAIL, { mailId: row.id });
      }
    });
  }

  /** An e-mail waiting, with where it goes; undefined once sent. */
  mail(id: number) {
    return this.db
      .selectFrom('notification_mails as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select(['m.id', 'm.event', 'm.line', 'm.user_id', 'u.email', 'u.firstname', 'u.disabled'])
      .where('m.id', '=', id)
      .executeTakeFirst();
  }

  async deleteMails(ids: number[]): Promise<void> {
    if (ids.length > 0) await this.db.deleteFrom('notification_mails').where('id', 'in', ids).execute();
  }

  /** Users with digest lines written at or before `before`. */
  async digestUsers(before: string): Promise<number[]> {
    const rows = await this.db
      .selectFrom('notification_mails')
      .select('user_id')
      .distinct()
      .where('mode', '=', 'daily')
      .where('created_at', '<=', before)
      .orderBy('user_id')
      .execute();
    return rows.map((r) => r.user_id);
  }

  async digestOf(userId: number, before: string): Promise<{ lines: Pick<NotificationMailRow, 'id' | 'line' | 'created_at'>[]; user: { email: string | null; firstname: string; disabled: number } | undefined }> {
    const [lines, user] = await Promise.all([
      this.db
        .selectFrom('notification_mails')
        .select(['id', 'line', 'created_at'])
        .where('mode', '=', 'daily')
        .where('user_id', '=', userId)
        .where('created_at', '<=', before)
        .orderBy('id')
        .execute(),
      this.db.selectFrom('users').select(['email', 'firstname', 'disabled']).where('id', '=', userId).executeTakeFirst(),
    ]);
    return { lines, user };
  }
}
