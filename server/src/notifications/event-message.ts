// What an event says: the webhook body (Standard Webhooks' type, timestamp, data) and the line an
// e-mail gives. Ids, names of the file, project and company, sizes, counts, states and a rejection's
// reason (the words the sender reads beside the upload) only: a patient's name or id is never read
// here, so it cannot be sent.
import { REJECT_REASON_LABELS, ZRejectReason, type TNotificationAction, type TNotificationEvent, type TRejectReason, type TWebhookBody } from '@portal/contract';
import type { DescribedFile } from './notifications.repository.js';

export type EventKind = 'upload' | 'delivery';

/** A delivery is a row of kind folder (deliveries/); every other row is an upload. */
export function kindOf(fileKind: string): EventKind {
  return fileKind === 'folder' || fileKind === 'delivery' ? 'delivery' : 'upload';
}

export function eventName(kind: EventKind, action: TNotificationAction): TNotificationEvent {
  return `${kind}.${action}`;
}

interface Counts {
  studies?: number;
  series?: number;
  instances?: number;
}

function countsOf(summary: string | null): Counts {
  if (!summary) return {};
  try {
    const parsed = JSON.parse(summary) as Record<string, unknown>;
    const counts: Counts = {};
    for (const key of ['studies', 'series', 'instances'] as const) {
      const value = parsed[key];
      if (typeof value === 'number') counts[key] = value;
    }
    return counts;
  } catch {
    return {};
  }
}

export function webhookBody(file: DescribedFile, event: TNotificationEvent, at: Date, decision?: 'accepted' | 'rejected'): TWebhookBody {
  return {
    type: event,
    timestamp: at.toISOString(),
    data: {
      file_id: file.id,
      kind: kindOf(file.kind),
      file_name: file.file,
      size: Number(file.filesize),
      project: { id: file.project_id, name: file.project_name },
      company: { id: file.company_id, name: file.companyname },
      processing: { status: file.processing_status, ...(file.processing_status === 'ready' ? countsOf(file.processing_summary) : {}) },
      ...(decision ? { review: { decision, ...(decision === 'rejected' && rejectReason(file) && { reason: rejectReason(file) }) } } : {}),
    },
  };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : word.endsWith('s') ? '' : 's'}`;

/** A rejection's reason as recorded with the decision; none before one was recorded. */
function rejectReason(file: DescribedFile): { code: TRejectReason; text: string } | undefined {
  const code = ZRejectReason.safeParse(file.review_reason);
  return code.success ? { code: code.data, text: file.review_note ?? '' } : undefined;
}

/** The sentence an e-mail gives for the event (immediate or a digest's line), without the time. */
export function mailSentence(file: DescribedFile, event: TNotificationEvent): string {
  const kind = kindOf(file.kind);
  const what = `The ${kind} “${file.file}” in project “${file.project_name}” (${file.companyname})`;
  switch (event.split('.')[1] as TNotificationAction) {
    case 'completed':
      return `${what} was received.`;
    case 'processed': {
      if (file.processing_status === 'failed') return `${what} could not be processed: ${file.processing_error ?? 'no reason was recorded'}`;
      const counts = countsOf(file.processing_summary);
      const parts = [
        counts.studies !== undefined ? plural(counts.studies, 'study').replace(/studys$/, 'studies') : null,
        counts.series !== undefined ? plural(counts.series, 'series') : null,
        counts.instances !== undefined ? plural(counts.instances, 'instance') : null,
      ].filter(Boolean);
      return `${what} was processed${parts.length ? `: ${parts.join(', ')}` : ''}.`;
    }
    case 'accepted':
      return `${what} was accepted by the receiving team.`;
    case 'rejected': {
      const reason = rejectReason(file);
      if (!reason) return `${what} was rejected by the receiving team; open the project to read the reason.`;
      const words = `${REJECT_REASON_LABELS[reason.code]}${reason.text ? `: ${reason.text}` : ''}`;
      return `${what} was rejected by the receiving team: ${words}${/[.!?]$/.test(words) ? '' : '.'}`;
    }
  }
}

const SUBJECTS: Record<TNotificationEvent, string> = {
  'upload.completed': 'An upload was received',
  'upload.processed': 'An upload was processed',
  'upload.accepted': 'An upload was accepted',
  'upload.rejected': 'An upload was rejected',
  'delivery.completed': 'A delivery was received',
  'delivery.processed': 'A delivery was processed',
  'delivery.accepted': 'A delivery was accepted',
  'delivery.rejected': 'A delivery was rejected',
};

export function mailSubject(event: string): string {
  return `Secure Upload Portal: ${SUBJECTS[event as TNotificationEvent] ?? 'news of your projects'}`;
}
