// How the screens name the events of docs/notifications.md: what happened (rows) to what (columns).
import { NOTIFICATION_ACTIONS, type TNotificationAction, type TNotificationEvent } from '@portal/contract';

export const ACTION_LABELS: Record<TNotificationAction, string> = {
  completed: 'Received',
  processed: 'Processed (or failed)',
  accepted: 'Accepted',
  rejected: 'Rejected',
};

export const KINDS = [
  { kind: 'upload', label: 'Uploads' },
  { kind: 'delivery', label: 'Deliveries' },
] as const;

export const ACTIONS = NOTIFICATION_ACTIONS;

/** 'Delivery processed': one event in a sentence's words. */
export function eventLabel(event: TNotificationEvent): string {
  const [kind, action] = event.split('.') as ['upload' | 'delivery', TNotificationAction];
  const what = kind === 'upload' ? 'Upload' : 'Delivery';
  return `${what} ${ACTION_LABELS[action].toLowerCase().replace(' (or failed)', '')}`;
}
