// A user's own choice of e-mails (GET/PUT /me/notifications). Any role chooses among the events of
// their company's projects; SysUser and SysAdmin may also follow every company's projects.
import { ROLES, type TNotificationEvent, type TNotificationPreferences, type ZUpdateNotificationPreferences } from '@portal/contract';
import type { z } from 'zod';
import type { Actor } from '../auth/index.js';
import { notFound, unprocessable } from '../errors/app-error.js';
import type { UsersRepository } from '../users/index.js';
import type { NotificationsRepository } from './notifications.repository.js';

type UpdatePreferences = z.output<typeof ZUpdateNotificationPreferences>;

export class NotificationPreferences {
  constructor(
    private readonly repo: NotificationsRepository,
    private readonly users: UsersRepository,
    private readonly mailConfigured: boolean,
  ) {}

  async get(actor: Actor): Promise<TNotificationPreferences> {
    const user = await this.users.findById(actor.userId);
    if (!user) throw notFound('User not found');
    const prefs = (await this.repo.preferences(actor.userId)) ?? { events: [], mode: 'immediate' as const, all_projects: false };
    return { events: prefs.events as TNotificationEvent[], mode: prefs.mode, all_projects: prefs.all_projects, email: user.email, mail_configured: this.mailConfigured };
  }

  async set(actor: Actor, body: UpdatePreferences): Promise<TNotificationPreferences> {
    const receiving = actor.role === ROLES.SysUser || actor.role === ROLES.SysAdmin;
    if (body.all_projects && !receiving) throw unprocessable('Only SysUsers and SysAdmins can follow every company’s projects');
    await this.repo.savePreferences(actor.userId, { events: body.events, mode: body.mode, all_projects: body.all_projects });
    return this.get(actor);
  }
}
