import type { RowStatus, UploadRow } from '../model/upload-queue';
import type { TraySession } from './use-tray-state';

const LEFT: ReadonlySet<RowStatus> = new Set(['queued', 'uploading', 'finishing', 'paused']);

/** A row the tray lists: one the user sent (a row only picked stays the dialog's). */
export function startedRow(row: UploadRow): boolean {
  return row.status !== 'ready';
}

export interface TraySummary {
  /** Files still to arrive: queued, on their way, being checked, or paused. */
  left: number;
  paused: number;
  /** Files whose bytes are on the way or waiting for a slot. */
  moving: number;
  sentBytes: number;
  totalBytes: number;
}

/** The tray's header line: over every session the tray shows, as Google Drive's or Uppy's does. */
export function summarise(sessions: readonly TraySession[]): TraySummary {
  const rows = sessions.flatMap((s) => s.snapshot.rows.filter(startedRow));
  const counting = rows.filter((r) => r.status !== 'cancelled' && !(r.status === 'failed' && !r.retryable));
  return {
    left: rows.filter((r) => LEFT.has(r.status)).length,
    paused: rows.filter((r) => r.status === 'paused').length,
    moving: rows.filter((r) => r.status === 'queued' || r.status === 'uploading').length,
    sentBytes: counting.reduce((sum, r) => sum + (r.status === 'done' ? r.file.size : r.sent), 0),
    totalBytes: counting.reduce((sum, r) => sum + r.file.size, 0),
  };
}

export function filesLeftText(left: number): string {
  return left === 1 ? '1 file left' : `${left} files left`;
}
