// People told (issue 35, item 3): e-mails and signed webhooks about uploads and deliveries.
export { Notifier } from './notifier.service.js';
export { NotificationsRepository } from './notifications.repository.js';
export { WebhooksRepository } from './webhooks.repository.js';
export { WebhooksAdministration } from './webhooks.service.js';
export { NotificationPreferences } from './preferences.service.js';
export { DigestSchedule } from './digest-schedule.js';
export { deliverWebhookJob, sendDigestJob, sendNotificationMailJob } from './notification-job-kinds.js';
export { notificationsRoutes } from './notifications.routes.js';
