import { mapApiError, type UserFacingError } from '../../../lib/error-mapping';
import { pathInFolder, type DeliveryApi } from '../api/deliveries';
import { UploadFailure, type RunningUpload, type Transport } from '../api/tus-upload';
import type { FileKind, KeptFile } from '../file-filters';
import { secondsLeft, TransferRate } from './transfer-rate';

/**
 * ready: picked, not sent in this dialog; queued: waiting for a free slot; uploading: bytes on the way;
 * finishing: every byte sent, the server is checking and storing it; done: a file of the project.
 */
export type RowStatus = 'ready' | 'queued' | 'uploading' | 'finishing' | 'done' | 'failed' | 'cancelled';

export interface UploadRow {
  key: string;
  path: string;
  file: File;
  kind: FileKind;
  checked: boolean;
  status: RowStatus;
  /** Bytes the server has or is receiving: after a resume this starts where the server stopped. */
  sent: number;
  resumed: boolean;
  error: UserFacingError | null;
  retryable: boolean;
  fileId: number | null;
  /** The picked folder's name for a file of a folder (sent as one delivery); null for a picked file. */
  folder: string | null;
}

export interface BatchProgress {
  files: number;
  doneFiles: number;
  totalBytes: number;
  sentBytes: number;
  bytesPerSecond: number | null;
  secondsLeft: number | null;
}

export interface QueueSnapshot {
  rows: readonly UploadRow[];
  /** True while any file of the batch is queued, uploading or finishing. */
  active: boolean;
  batch: BatchProgress | null;
  /** Why a folder's delivery could not be completed, in the server's words. */
  deliveryFailure: { folder: string; error: UserFacingError } | null;
}

/** Issue 13: four files at a time keeps a link busy without starving each file of bandwidth. */
export const DEFAULT_CONCURRENCY = 4;

const IN_FLIGHT: ReadonlySet<RowStatus> = new Set(['queued', 'uploading', 'finishing']);
const STARTABLE: ReadonlySet<RowStatus> = new Set(['ready', 'failed', 'cancelled']);

export interface UploadQueueOptions {
  projectId: number;
  transport: Transport;
  concurrency?: number;
  now?: () => number;
  deliveries?: DeliveryApi;
}

/** Called once each time the batch has nothing left in flight, with its rows as they ended and every row listed. */
export type SettledListener = (batch: UploadRow[], all: readonly UploadRow[]) => void;

export function rowKey(file: File, path: string): string {
  return `${path}:${file.size}:${file.lastModified}`;
}

/** The rows of the upload dialog and the uploads behind them, outside React so the rules are testable alone. */
export class UploadQueue {
  private rows: UploadRow[] = [];
  private readonly running = new Map<string, RunningUpload>();
  private readonly highest = new Map<string, number>();
  private batch = new Set<string>();
  private readonly listeners = new Set<() => void>();
  private readonly rate = new TransferRate();
  private snapshot: QueueSnapshot = { rows: [], active: false, batch: null, deliveryFailure: null };
  /** Open deliveries by folder name; a folder is in `opening` while its delivery is being created. */
  private readonly deliveryIds = new Map<string, number>();
  private readonly opening = new Set<string>();
  private completing = 0;
  private deliveryFailure: QueueSnapshot['deliveryFailure'] = null;
  private readonly concurrency: number;
  private readonly now: () => number;
  private settledListener: SettledListener = () => undefined;

  constructor(private readonly options: UploadQueueOptions) {
    this.concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
    this.now = options.now ?? (() => performance.now());
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): QueueSnapshot => this.snapshot;

  onSettled(listener: SettledListener): void {
    this.settledListener = listener;
  }

  /** Adds picked files after those listed, once each; a file picked again that had failed is offered again. */
  add(files: readonly KeptFile[], folder: string | null = null): void {
    const known = new Set(this.rows.map((r) => r.key));
    const added = files
      .map((f) => ({ ...f, key: rowKey(f.file, f.path) }))
      .filter((f) => !known.has(f.key))
      .map<UploadRow>((f) => ({ ...f, checked: true, status: 'ready', sent: 0, resumed: false, error: null, retryable: true, fileId: null, folder }));
    this.rows = [...this.rows, ...added];
    this.publish();
  }

  setChecked(key: string, checked: boolean): void {
    this.update(key, (row) => (STARTABLE.has(row.status) ? { ...row, checked } : row));
  }

  setAllChecked(checked: boolean): void {
    this.rows = this.rows.map((row) => (STARTABLE.has(row.status) ? { ...row, checked } : row));
    this.publish();
  }

  /** Sends every checked file that has not arrived yet, a few at a time. */
  start(): void {
    const keys = this.rows.filter((r) => r.checked && STARTABLE.has(r.status)).map((r) => r.key);
    if (keys.length === 0) return;
    this.batch = new Set(keys);
    this.deliveryFailure = null;
    this.rate.reset();
    this.rate.record(0, this.now());
    this.rows = this.rows.map((row) => (this.batch.has(row.key) ? { ...row, status: 'queued', error: null, sent: 0, resumed: false } : row));
    this.pump();
  }

  /** One row again, into the running batch or as a batch of its own. */
  retry(key: string): void {
    const row = this.rows.find((r) => r.key === key);
    if (!row || !STARTABLE.has(row.status)) return;
    if (!this.snapshot.active) {
      this.batch = new Set();
      this.rate.reset();
      this.rate.record(0, this.now());
    }
    this.batch.add(key);
    this.update(key, (r) => ({ ...r, checked: true, status: 'queued', error: null, sent: 0, resumed: false }));
    this.pump();
  }

  /** Stops one file and deletes what the server holds of it. A finishing file is past stopping. */
  cancel(key: string): void {
    if (this.stop(key)) this.pump();
  }

  /** Cancel during an upload cancels all: nothing queued starts, nothing running goes on. */
  cancelAll(): void {
    const keys = this.rows.filter((r) => r.status === 'queued' || r.status === 'uploading').map((r) => r.key);
    keys.forEach((key) => this.stop(key));
    this.publish();
  }

  /** The dialog went away (sign-out, navigation): stop sending, keep the server's part for a resume. */
  dispose(): void {
    for (const running of this.running.values()) running.abandon();
    this.running.clear();
  }

  private stop(key: string): boolean {
    const row = this.rows.find((r) => r.key === key);
    if (!row || (row.status !== 'queued' && row.status !== 'uploading')) return false;
    const running = this.running.get(key);
    this.running.delete(key);
    // The server side is removed in the background; if that request fails, the upload expires there.
    if (running) running.cancel().catch(() => undefined);
    this.rows = this.rows.map((r) => (r.key === key ? { ...r, status: 'cancelled', sent: 0 } : r));
    return true;
  }

  private startRow(row: UploadRow): void {
    this.highest.delete(row.key);
    let resumed = false;
    const deliveryId = row.folder === null ? undefined : this.deliveryIds.get(row.folder);
    const delivery = deliveryId === undefined ? undefined : { id: deliveryId, relativePath: pathInFolder(row.path) };
    const running = this.options.transport(
      { projectId: this.options.projectId, path: row.path, file: row.file, delivery },
      {
        onResume: () => {
          resumed = true;
          this.update(row.key, (r) => ({ ...r, resumed: true }));
        },
        onProgress: (sent) => {
          if (this.running.get(row.key) !== running) return;
          const before = this.highest.get(row.key) ?? (resumed ? sent : 0);
          // Only bytes never sent before count towards speed: a resume's offset and a retried chunk do not.
          this.rate.record(sent - before, this.now());
          this.highest.set(row.key, Math.max(before, sent));
          this.update(row.key, (r) => ({ ...r, sent, status: sent >= r.file.size ? 'finishing' : 'uploading' }));
        },
      },
    );
    this.running.set(row.key, running);
    this.update(row.key, (r) => ({ ...r, status: 'uploading' }));
    running.result.then(
      ({ fileId }) => this.finish(row.key, running, (r) => ({ ...r, status: 'done', checked: false, sent: r.file.size, fileId })),
      (error: unknown) => {
        const failure = error instanceof UploadFailure ? error : new UploadFailure({ message: 'Unexpected Error', details: String(error) }, true);
        this.finish(row.key, running, (r) => ({ ...r, status: 'failed', error: failure.reason, retryable: failure.retryable }));
      },
    );
  }

  private finish(key: string, running: RunningUpload, change: (row: UploadRow) => UploadRow): void {
    // A cancelled upload's late answer must not overwrite what the user chose.
    if (this.running.get(key) !== running) return;
    this.running.delete(key);
    this.rows = this.rows.map((row) => (row.key === key ? change(row) : row));
    this.completeDeliveries();
    this.pump();
  }

  /** A folder whose every file still wanted has arrived becomes one row of the project. */
  private completeDeliveries(): void {
    if (this.rows.some((r) => IN_FLIGHT.has(r.status) && this.batch.has(r.key))) return;
    for (const [folder, id] of this.deliveryIds) {
      const rows = this.rows.filter((r) => r.folder === folder);
      const ready = rows.some((r) => r.status === 'done') && rows.every((r) => r.status === 'done' || !r.checked);
      if (!ready) continue;
      this.deliveryIds.delete(folder);
      this.completing += 1;
      (this.options.deliveries?.complete(id) ?? Promise.resolve()).then(
        () => this.endCompletion(null),
        (error: unknown) => this.endCompletion({ folder, error: mapApiError(error) }),
      );
    }
  }

  private endCompletion(failure: QueueSnapshot['deliveryFailure']): void {
    this.completing -= 1;
    if (failure) this.deliveryFailure = failure;
    this.publish();
  }

  /** Opens the delivery of each folder with files waiting, once; its files wait until it is open. */
  private openDeliveries(): void {
    const folders = new Set(this.rows.filter((r) => r.status === 'queued' && r.folder !== null).map((r) => r.folder as string));
    for (const folder of folders) {
      if (this.deliveryIds.has(folder) || this.opening.has(folder) || !this.options.deliveries) continue;
      this.opening.add(folder);
      this.options.deliveries.open(this.options.projectId, folder).then(
        (id) => {
          this.opening.delete(folder);
          this.deliveryIds.set(folder, id);
          this.pump();
        },
        (error: unknown) => {
          this.opening.delete(folder);
          const reason = mapApiError(error);
          this.rows = this.rows.map((r) => (r.folder === folder && r.status === 'queued' ? { ...r, status: 'failed', error: reason, retryable: true } : r));
          this.publish();
        },
      );
    }
  }

  private pump(): void {
    this.openDeliveries();
    let free = this.concurrency - this.running.size;
    for (const row of this.rows) {
      if (free <= 0) break;
      const waiting = row.folder !== null && this.options.deliveries !== undefined && !this.deliveryIds.has(row.folder);
      if (row.status === 'queued' && !this.running.has(row.key) && !waiting) {
        this.startRow(row);
        free -= 1;
      }
    }
    this.publish();
  }

  private update(key: string, change: (row: UploadRow) => UploadRow): void {
    this.rows = this.rows.map((row) => (row.key === key ? change(row) : row));
    this.publish();
  }

  private publish(): void {
    const inBatch = this.rows.filter((r) => this.batch.has(r.key));
    const active = inBatch.some((r) => IN_FLIGHT.has(r.status)) || this.completing > 0;
    let batch: BatchProgress | null = null;
    if (inBatch.length > 0) {
      const totalBytes = inBatch.reduce((sum, r) => sum + r.file.size, 0);
      const sentBytes = inBatch.reduce((sum, r) => sum + (r.status === 'done' ? r.file.size : r.sent), 0);
      const bytesPerSecond = active ? this.rate.bytesPerSecond(this.now()) : null;
      const remaining = inBatch.filter((r) => IN_FLIGHT.has(r.status)).reduce((sum, r) => sum + r.file.size - r.sent, 0);
      batch = {
        files: inBatch.length,
        doneFiles: inBatch.filter((r) => r.status === 'done').length,
        totalBytes,
        sentBytes,
        bytesPerSecond,
        secondsLeft: secondsLeft(remaining, bytesPerSecond),
      };
    }
    const settled = this.snapshot.active && !active;
    this.snapshot = { rows: this.rows, active, batch, deliveryFailure: this.deliveryFailure };
    for (const listener of this.listeners) listener();
    if (settled) this.settledListener(inBatch, this.rows);
  }
}
