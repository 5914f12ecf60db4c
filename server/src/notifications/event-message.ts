// What an event says: the webhook body (Standard Webhooks' type, timestamp, data) and the line an
// e-mail gives. Ids, names of the file, project and company, sizes, counts and states only: a
// patient's name or id is never read here, so it cannot be sent.
import type { TNotificationAction, TNotificationEvent, TWebhookBody } from '@portal/contract';
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
      ...(decision ? { review: { decision } } : {}),
    },
  };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : word.endsWith('s') ? '' : 's'}`;

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
    case 'rejected':
      return `${what} was rejected by the receiving team; open the project to read the reason.`;
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
