import { mapApiError, type UserFacingError } from '../../../lib/error-mapping';
import { BUNDLE_NAME } from '../api/bundle';
import { packedBundle } from '../api/pack-off-page';
import { preparedUpload } from '../api/prepared-upload';
import { pathInFolder, type DeliveryApi } from '../api/deliveries';
import type { DeliveryMemory } from '../api/delivery-memory';
import { LeftOutFailure, UploadFailure, type BundleMaker, type RunningUpload, type Transport, type UploadJob } from '../api/tus-upload';
import type { KeptFile } from '../file-filters';
import { arrivedBefore, bundleFileOf, FolderDeliveries } from './folder-deliveries';
import { planAlone, planFolder } from './plan-sends';
import { secondsLeft, TransferRate } from '@portal/contract/transfer-rate';
import type { RowStatus, Send, UploadRow } from './upload-row';

export type { RowStatus, UploadRow } from './upload-row';

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

/** How long a progress event may wait to be heard: ten renders a second at most while bytes flow. */
const PROGRESS_NOTICE_MS = 100;

/** Issue 13: four uploads at a time keeps a link busy without starving each of bandwidth. */
export const DEFAULT_CONCURRENCY = 4;

const IN_FLIGHT: ReadonlySet<RowStatus> = new Set(['queued', 'uploading', 'finishing']);
const STARTABLE: ReadonlySet<RowStatus> = new Set(['ready', 'failed', 'cancelled', 'paused']);

export interface UploadQueueOptions {
  projectId: number;
  transport: Transport;
  concurrency?: number;
  now?: () => number;
  deliveries?: DeliveryApi;
  deliveryMemory?: DeliveryMemory;
  /** Removes what the server holds of a paused file that is cancelled (its resumable upload). */
  discard?: (job: UploadJob) => Promise<void>;
  /** Makes a bundle's bytes from its files: by default their tar, packed off the page. */
  makeBundle?: BundleMaker;
}

/** Called once each time the batch has nothing left in flight, with its rows as they ended and every row listed. */
export type SettledListener = (batch: UploadRow[], all: readonly UploadRow[]) => void;

export function rowKey(file: File, path: string): string {
  return `${path}:${file.size}:${file.lastModified}`;
}

interface Running {
  send: Send;
  upload: RunningUpload;
  resumed: boolean;
  /** The most file bytes this send has reported (a bundle's headers do not count). */
  highest: number | undefined;
}

/** The member a refusal of a bundle names (the longest path its words contain), if any. */
function namedMember(rows: readonly UploadRow[], reason: UserFacingError): UploadRow | undefined {
  const words = `${reason.message} ${reason.details}`;
  return rows
    .filter((r) => words.includes(pathInFolder(r.path)))
    .sort((a, b) => pathInFolder(b.path).length - pathInFolder(a.path).length)[0];
}

/** The rows of the upload dialog and the uploads behind them, outside React so the rules are testable alone. */
export class UploadQueue {
  private rows: UploadRow[] = [];
  /** Planned sends not started yet, in order. */
  private pending: Send[] = [];
  private readonly running = new Map<number, Running>();
  /** Per folder, the removals of stopped sends its delivery's completion waits for. */
  private readonly removing = new Map<string, Promise<unknown>>();
  private nextSendId = 1;
  private batch = new Set<string>();
  private readonly listeners = new Set<() => void>();
  private readonly rate = new TransferRate();
  private snapshot: QueueSnapshot = { rows: [], active: false, batch: null, deliveryFailure: null };
  private readonly deliveries: FolderDeliveries | null;
  private completing = 0;
  private deliveryFailure: QueueSnapshot['deliveryFailure'] = null;
  private readonly concurrency: number;
  private readonly now: () => number;
  private settledListener: SettledListener = () => undefined;
  private noticeTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly options: UploadQueueOptions) {
    this.concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
    this.now = options.now ?? (() => performance.now());
    this.deliveries = options.deliveries ? new FolderDeliveries(options.projectId, options.deliveries, options.deliveryMemory) : null;
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
      .map<UploadRow>((f) => ({ ...f, checked: true, status: 'ready', sent: 0, resumed: false, error: null, retryable: true, fileId: null, folder, bundled: 0, send: null }));
    this.rows = [...this.rows, ...added];
    this.publish();
  }

  setChecked(key: string, checked: boolean): void {
    this.update([key], (row) => (STARTABLE.has(row.status) ? { ...row, checked } : row));
  }

  setAllChecked(checked: boolean): void {
    this.rows = this.rows.map((row) => (STARTABLE.has(row.status) ? { ...row, checked } : row));
    this.publish();
  }

  /** Sends every checked file that has not arrived yet, a few uploads at a time. */
  start(): void {
    const keys = this.rows.filter((r) => r.checked && STARTABLE.has(r.status)).map((r) => r.key);
    if (keys.length === 0) return;
    this.batch = new Set(keys);
    this.deliveryFailure = null;
    this.rate.reset();
    this.rate.record(0, this.now());
    this.requeue(keys);
    this.pump();
  }

  /**
   * One row again, into the running batch or as a batch of its own. Rows that failed together in a
   * bundle go again together, so the bundle resumes where the server has it.
   */
  retry(key: string): void {
    const row = this.rows.find((r) => r.key === key);
    if (!row || !STARTABLE.has(row.status)) return;
    const sameSend = (r: UploadRow) => row.send !== null && r.send === row.send;
    const together =
      row.status === 'failed' ? this.rows.filter((r) => sameSend(r) && r.status === 'failed' && r.retryable) : row.status === 'paused' ? this.rows.filter((r) => sameSend(r) && r.status === 'paused') : [];
    this.goOn([...new Set([key, ...together.map((r) => r.key)])]);
  }

  /** Rows again, into the running batch or as a batch of their own. */
  private goOn(keys: readonly string[]): void {
    if (keys.length === 0) return;
    if (!this.snapshot.active) {
      this.batch = new Set();
      this.rate.reset();
      this.rate.record(0, this.now());
    }
    keys.forEach((k) => this.batch.add(k));
    this.requeue(keys);
    this.pump();
  }

  /**
   * Stops one file and deletes what the server holds of it. A file of a folder is left out of the
   * delivery: one waiting in a bundle leaves the bundle before it starts; one whose bundle is on the
   * way stops that bundle, and the bundle's other files go again in a new one. A paused file only
   * leaves the batch (and its delivery). A finishing file is past stopping.
   */
  cancel(key: string): void {
    const row = this.rows.find((r) => r.key === key);
    if (!row || (row.status !== 'queued' && row.status !== 'uploading' && row.status !== 'paused')) return;
    if (row.status === 'paused') this.discardPaused(row);
    this.pending = this.pending.map((s) => ({ ...s, keys: s.keys.filter((k) => k !== key) })).filter((s) => s.keys.length > 0);
    const running = [...this.running.values()].find((r) => r.send.keys.includes(key));
    if (running) {
      this.stopSend(running);
      this.requeue(running.send.keys.filter((k) => k !== key));
    }
    this.change([key], (r) => ({ ...r, status: 'cancelled', sent: 0, checked: r.folder === null ? r.checked : false }));
    this.completeDeliveries();
    this.pump();
  }

  /**
   * What the server holds of a paused file given up: nothing of it runs, so only a file sent alone
   * has a part of its own to remove. A paused bundle's part holds other files too: it is left to the
   * server's expiry, and they go again in a new bundle. Never started: nothing to remove.
   */
  private discardPaused(row: UploadRow): void {
    if (row.bundled !== 0 || row.send === null || !this.options.discard) return;
    const discard = this.options.discard;
    void Promise.resolve(this.jobOf({ id: 0, keys: [row.key], folder: row.folder, bundle: false }, [row])).then(discard);
  }

  /**
   * Stops one file but keeps what the server holds, so that going on (retry) resumes from its offset.
   * A file in a bundle on its way pauses the bundle: its files share one upload.
   */
  pause(key: string): void {
    const row = this.rows.find((r) => r.key === key);
    if (!row || (row.status !== 'queued' && row.status !== 'uploading')) return;
    const running = [...this.running.values()].find((r) => r.send.keys.includes(key));
    const keys = running ? running.send.keys : [key];
    this.pending = this.pending.map((s) => ({ ...s, keys: s.keys.filter((k) => !keys.includes(k)) })).filter((s) => s.keys.length > 0);
    if (running) {
      this.running.delete(running.send.id);
      running.upload.abandon();
    }
    this.change(keys, (r) => ({ ...r, status: 'paused' }));
    this.pump();
  }

  /** Every queued or uploading file paused at once: nothing is sent until the user goes on. */
  pauseAll(): void {
    this.pending = [];
    for (const running of [...this.running.values()]) {
      if (!this.rows.some((r) => running.send.keys.includes(r.key) && r.status === 'uploading')) continue;
      this.running.delete(running.send.id);
      running.upload.abandon();
    }
    this.rows = this.rows.map((r) => (r.status === 'queued' || (r.status === 'uploading' && !this.isRunning(r.key)) ? { ...r, status: 'paused' } : r));
    this.publish();
  }

  /** Every paused file goes on together, so a paused bundle is sent again whole and resumes. */
  resumeAll(): void {
    this.goOn(this.rows.filter((r) => r.status === 'paused').map((r) => r.key));
  }

  /** Cancel during an upload cancels all: nothing queued starts, nothing running goes on. */
  cancelAll(): void {
    this.pending = [];
    for (const running of [...this.running.values()]) {
      if (this.rows.some((r) => running.send.keys.includes(r.key) && r.status === 'uploading')) this.stopSend(running);
    }
    this.rows = this.rows.map((r) => (r.status === 'queued' || (r.status === 'uploading' && !this.isRunning(r.key)) ? { ...r, status: 'cancelled', sent: 0 } : r));
    this.publish();
  }

  /** The dialog went away (sign-out, navigation): stop sending, keep the server's part for a resume. */
  dispose(): void {
    for (const running of this.running.values()) running.upload.abandon();
    this.running.clear();
    if (this.noticeTimer !== undefined) clearTimeout(this.noticeTimer);
    this.noticeTimer = undefined;
  }

  private isRunning(key: string): boolean {
    return [...this.running.values()].some((r) => r.send.keys.includes(key));
  }

  private stopSend(running: Running): void {
    this.running.delete(running.send.id);
    // The server side is removed in the background; if that request fails, the upload expires there.
    const removed = running.upload.cancel().catch(() => undefined);
    const folder = running.send.folder;
    if (folder === null) return;
    this.removing.set(folder, Promise.all([this.removing.get(folder), removed]));
  }

  /** Back to waiting for a send: the next pump plans them again. */
  private requeue(keys: readonly string[]): void {
    this.change(keys, (r) => ({ ...r, checked: true, status: 'queued', error: null, sent: 0, resumed: false }));
  }

  private rowsOf(keys: readonly string[]): UploadRow[] {
    const wanted = new Set(keys);
    return this.rows.filter((r) => wanted.has(r.key));
  }

  /** A file alone as it is; a bundle once its bytes are made (its tar packed off the page, or de-identified). */
  private jobOf(send: Send, rows: readonly UploadRow[]): UploadJob | Promise<UploadJob> {
    const projectId = this.options.projectId;
    const delivery = send.folder === null ? undefined : this.deliveries?.get(send.folder);
    const [first] = rows as [UploadRow];
    if (send.bundle && delivery) {
      const members = rows.map(bundleFileOf);
      const make = this.options.makeBundle ?? packedBundle;
      return make(members).then((made) => ({ projectId, path: BUNDLE_NAME, ...made, bundle: { deliveryId: delivery.id, members } }));
    }
    return { projectId, path: first.path, file: first.file, delivery: delivery && { id: delivery.id, relativePath: pathInFolder(first.path) } };
  }

  private startSend(send: Send): void {
    const rows = this.rowsOf(send.keys);
    const fileBytes = rows.reduce((sum, r) => sum + r.file.size, 0);
    const entry: Running = { send, upload: undefined as unknown as RunningUpload, resumed: false, highest: undefined };
    const bundled = send.bundle ? rows.length : 0;
    const made = this.jobOf(send, rows);
    const transport = (job: UploadJob) => this.options.transport(job, {
      onResume: () => {
        entry.resumed = true;
        this.update(send.keys, (r) => ({ ...r, resumed: true }));
      },
      onProgress: (sent) => {
        if (this.running.get(send.id) !== entry) return;
        // A bundle's bytes are shared out among its files in proportion, so each row moves with it
        // and speed and time left count the files' bytes, not the tar's headers.
        const share = job.file.size > 0 ? Math.min(1, sent / job.file.size) : 1;
        const sentOf = (size: number) => (send.bundle ? Math.floor(size * share) : Math.min(sent, size));
        const payload = sentOf(fileBytes);
        const before = entry.highest ?? (entry.resumed ? payload : 0);
        // Only bytes never sent before count towards speed: a resume's offset and a retried chunk do not.
        this.rate.record(payload - before, this.now());
        entry.highest = Math.max(before, payload);
        const status = sent >= job.file.size ? 'finishing' : 'uploading';
        this.change(send.keys, (r) => ({ ...r, sent: sentOf(r.file.size), status }));
        this.publish(true);
      },
    });
    entry.upload = made instanceof Promise ? preparedUpload(made, transport) : transport(made);
    this.running.set(send.id, entry);
    this.update(send.keys, (r) => ({ ...r, status: 'uploading', send: send.id, bundled }));
    entry.upload.result.then(
      ({ fileId }) => {
        if (this.running.get(send.id) !== entry) return;
        if (send.folder !== null) this.deliveries?.arrived(send.folder, rows);
        this.finish(entry, send.keys, (r) => ({ ...r, status: 'done', checked: false, sent: r.file.size, fileId }));
      },
      (error: unknown) => {
        const failure = error instanceof UploadFailure ? error : new UploadFailure({ message: 'Unexpected Error', details: String(error) }, true);
        this.failed(entry, rows, failure);
      },
    );
  }

  /**
   * A bundle refused for one of its files (a path the server will not take) fails that file only;
   * the others go again in a new bundle. Any other failure is every file's.
   */
  private failed(entry: Running, rows: readonly UploadRow[], failure: UploadFailure): void {
    if (failure instanceof LeftOutFailure) {
      this.leftOut(entry, rows, failure);
      return;
    }
    const named = entry.send.bundle && !failure.retryable ? namedMember(rows, failure.reason) : undefined;
    const fail = (r: UploadRow): UploadRow => ({ ...r, status: 'failed', error: failure.reason, retryable: failure.retryable });
    if (!named) {
      this.finish(entry, entry.send.keys, fail);
      return;
    }
    if (this.running.get(entry.send.id) !== entry) return;
    this.requeue(entry.send.keys.filter((k) => k !== named.key));
    this.finish(entry, [named.key], fail);
  }

  /**
   * Files whose identity could not be removed are never sent: they end unchecked with their reason
   * (so the folder's delivery completes without them), and the send's other files go again.
   */
  private leftOut(entry: Running, rows: readonly UploadRow[], failure: LeftOutFailure): void {
    if (this.running.get(entry.send.id) !== entry) return;
    const named = (r: UploadRow) => failure.leftOut.get(r.folder === null ? r.path : pathInFolder(r.path));
    const out = rows.filter((r) => named(r) !== undefined);
    this.requeue(rows.filter((r) => named(r) === undefined).map((r) => r.key));
    this.finish(entry, out.map((r) => r.key), (r) => ({ ...r, status: 'failed', checked: false, retryable: false, error: { message: 'Left out', details: named(r) ?? '' } }));
  }

  private finish(entry: Running, keys: readonly string[], change: (row: UploadRow) => UploadRow): void {
    // A cancelled upload's late answer must not overwrite what the user chose.
    if (this.running.get(entry.send.id) !== entry) return;
    this.running.delete(entry.send.id);
    this.change(keys, change);
    this.completeDeliveries();
    this.pump();
  }

  /** A folder whose every file still wanted has arrived becomes one row of the project. */
  private completeDeliveries(): void {
    if (!this.deliveries || this.rows.some((r) => IN_FLIGHT.has(r.status) && this.batch.has(r.key))) return;
    for (const folder of this.deliveries.folders()) {
      const rows = this.rows.filter((r) => r.folder === folder);
      const ready = rows.some((r) => r.status === 'done') && rows.every((r) => r.status === 'done' || !r.checked);
      if (!ready) continue;
      this.completing += 1;
      void this.deliveries.complete(folder, this.removing.get(folder)).then((error) => {
        this.completing -= 1;
        if (error) this.deliveryFailure = { folder, error };
        this.publish();
      });
    }
  }

  /** Opens the delivery of each folder with files waiting, once; its files wait until it is open. */
  private openDeliveries(): void {
    const deliveries = this.deliveries;
    if (!deliveries) return;
    const folders = new Set(this.rows.filter((r) => r.status === 'queued' && r.folder !== null).map((r) => r.folder as string));
    for (const folder of folders) {
      if (deliveries.get(folder) || deliveries.isOpening(folder)) continue;
      deliveries.ensure(folder, this.rows.filter((r) => r.folder === folder)).then(
        () => this.pump(),
        (error: unknown) => {
          const reason = mapApiError(error);
          this.update(
            this.rows.filter((r) => r.folder === folder && r.status === 'queued').map((r) => r.key),
            (r) => ({ ...r, status: 'failed', error: reason, retryable: true }),
          );
        },
      );
    }
  }

  /** Turns rows waiting for a send into sends: picked files alone, a folder's once its delivery is open. */
  private plan(): void {
    const planned = new Set([...this.pending, ...[...this.running.values()].map((r) => r.send)].flatMap((s) => s.keys));
    const waiting = this.rows.filter((r) => r.status === 'queued' && !planned.has(r.key));
    const nextId = () => this.nextSendId++;
    const sends: Send[] = [];
    for (const row of waiting) if (row.folder === null || !this.deliveries) sends.push(planAlone(row, nextId));
    for (const folder of new Set(waiting.map((r) => r.folder))) {
      const delivery = folder === null ? undefined : this.deliveries?.get(folder);
      if (folder === null || !delivery) continue;
      for (const send of planFolder(waiting.filter((r) => r.folder === folder), folder, nextId)) {
        // After a reload, what arrived in the same delivery before it is not sent again.
        const arrived = this.rowsOf(send.keys).filter((r) => arrivedBefore(delivery, r));
        if (arrived.length > 0) this.change(arrived.map((r) => r.key), (r) => ({ ...r, status: 'done', checked: false, sent: r.file.size, resumed: true }));
        const keys = send.keys.filter((k) => !arrived.some((r) => r.key === k));
        if (keys.length > 0) sends.push({ ...send, keys, bundle: keys.length > 1 });
      }
    }
    this.pending = [...this.pending, ...sends];
  }

  private pump(): void {
    this.openDeliveries();
    this.plan();
    while (this.running.size < this.concurrency && this.pending.length > 0) this.startSend(this.pending.shift() as Send);
    this.completeDeliveries();
    this.publish();
  }

  private update(keys: readonly string[], change: (row: UploadRow) => UploadRow): void {
    this.change(keys, change);
    this.publish();
  }

  /**
   * Changes rows without telling anyone yet: a step that ends a send and may start a completion
   * publishes once at its end, or listeners would see the batch settle, then go on, then settle again.
   */
  private change(keys: readonly string[], change: (row: UploadRow) => UploadRow): void {
    const wanted = new Set(keys);
    this.rows = this.rows.map((row) => (wanted.has(row.key) ? change(row) : row));
  }

  /**
   * The snapshot is always current; listeners (the dialog) hear of it at once, or for a progress
   * event within PROGRESS_NOTICE_MS: four sends report progress tens of times a second, and a render
   * of a 2,000-file folder's dialog each time held the page for seconds.
   */
  private publish(progressOnly = false): void {
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
    if (progressOnly) {
      this.noticeTimer ??= setTimeout(() => this.notify(), PROGRESS_NOTICE_MS);
    } else {
      this.notify();
    }
    if (settled) this.settledListener(inBatch, this.rows);
  }

  private notify(): void {
    if (this.noticeTimer !== undefined) clearTimeout(this.noticeTimer);
    this.noticeTimer = undefined;
    for (const listener of this.listeners) listener();
  }
}
