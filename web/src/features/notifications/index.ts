// What other features show of notifications: the webhooks tab of the administration. The settings
// dialog is loaded by the app frame on demand (components/NotificationsDialog).
export { WebhooksPanel } from './components/WebhooksPanel';
