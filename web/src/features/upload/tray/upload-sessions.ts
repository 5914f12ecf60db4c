import type { DeliveryApi } from '../api/deliveries';
import { packedBundle } from '../api/pack-off-page';
import type { BundleMaker, Transport, UploadJob } from '../api/tus-upload';
import type { UploadDeidentification } from '../api/deidentification';
import type { PolicyLoader } from '../deid/use-deidentification';
import type { UserFacingError } from '../../../lib/error-mapping';
import { UploadQueue, type SettledListener, type UploadRow } from '../model/upload-queue';
import { currentUserId, forgetUnfinished, saveUnfinished, unfinishedId, type UnfinishedUpload } from './unfinished-store';

/** What the session's de-identification says (deid/use-deidentification.ts), once its driver has asked. */
export interface SessionDeid {
  ready: boolean;
  failure: UserFacingError | null;
  line: string | null;
  transport: Transport;
  /** Set when the session de-identifies: a folder's bundles are made from the made files, never packed as picked. */
  makeBundle: BundleMaker | null;
  policy: () => Promise<UploadDeidentification>;
}

export interface SessionOptions {
  projectId: number;
  projectName: string | null;
  transport: Transport;
  deliveries: DeliveryApi;
  loadPolicy?: PolicyLoader | undefined;
  /** The rejected file a file sent alone replaces (issue 35); such a session is never shared. */
  replaces?: number | undefined;
  /** Removes what the server holds of a paused file that is cancelled. */
  discard?: ((job: UploadJob) => Promise<void>) | undefined;
}

/** Rows worth remembering after a reload: the server may hold part of them. */
const UNFINISHED: ReadonlySet<UploadRow['status']> = new Set(['queued', 'uploading', 'finishing', 'paused']);

/** Unfinished, or failed on the way (a lost network) with bytes the server keeps for a resume. */
function resumable(row: UploadRow): boolean {
  return UNFINISHED.has(row.status) || (row.status === 'failed' && row.retryable && row.sent > 0);
}
/** How often the bytes sent are written down while they flow. */
const SAVE_EVERY_MS = 1_000;

/**
 * One project's uploads: the queue behind the upload dialog, which lives on when the dialog closes
 * or the user moves to another page, so that the tray can show and steer it.
 */
export class UploadSession {
  readonly queue: UploadQueue;
  deid: SessionDeid | null = null;
  /** True while an upload dialog shows this session. */
  attached = false;
  private readonly listeners = new Set<() => void>();
  private readonly unsubscribe: () => void;
  private readonly saved = new Map<string, number>();
  private readonly forgotten = new Set<string>();
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly userId = currentUserId();

  constructor(
    readonly id: number,
    readonly options: SessionOptions,
  ) {
    const replaces = options.replaces;
    // The queue sends through the de-identification once it is known; nothing starts before (ready).
    const relay: Transport = (job, callbacks) => {
      const sending = this.deid?.transport ?? options.transport;
      return sending(replaces !== undefined && !job.delivery && !job.bundle ? { ...job, replaces } : job, callbacks);
    };
    const deliveries: DeliveryApi = replaces === undefined ? options.deliveries : { ...options.deliveries, open: (project, name) => options.deliveries.open(project, name, replaces) };
    // Asked at each bundle's start, as the transport is: the de-identification is known before any send.
    const makeBundle: BundleMaker = (members) => (this.deid?.makeBundle ?? packedBundle)(members);
    this.queue = new UploadQueue({ projectId: options.projectId, transport: relay, makeBundle, deliveries, discard: options.discard });
    this.unsubscribe = this.queue.subscribe(() => this.remember());
  }

  get projectId(): number {
    return this.options.projectId;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  setDeid(deid: SessionDeid | null): void {
    this.deid = deid;
    this.listeners.forEach((l) => l());
  }

  /** Resolves once the policy is known (or known to be unreadable), as the dialog's Upload Files waits for it. */
  whenReady(): Promise<SessionDeid> {
    if (this.deid?.ready) return Promise.resolve(this.deid);
    return new Promise((resolve) => {
      const stop = this.subscribe(() => {
        if (!this.deid?.ready) return;
        stop();
        resolve(this.deid);
      });
    });
  }

  /** Something the user may still want: a file on its way, paused, or that failed or was cancelled after a start. */
  get busy(): boolean {
    return this.queue.getSnapshot().rows.some((r) => UNFINISHED.has(r.status));
  }

  dispose(): void {
    this.unsubscribe();
    if (this.saveTimer !== undefined) clearTimeout(this.saveTimer);
    this.queue.dispose();
  }

  /** Writes down the unfinished rows (at most once a second) and forgets those that ended. */
  private remember(): void {
    this.saveTimer ??= setTimeout(() => {
      this.saveTimer = undefined;
      void this.save();
    }, SAVE_EVERY_MS);
    // Every row that ended is forgotten once, whether or not this page wrote it: a file picked
    // again after a reload ends here, while what remembered it was written by the page before.
    const rows = this.queue.getSnapshot().rows;
    const ended = rows.filter((r) => r.status !== 'ready' && !resumable(r) && !this.forgotten.has(r.key));
    rows.filter(resumable).forEach((r) => this.forgotten.delete(r.key));
    if (ended.length === 0) return;
    ended.forEach((r) => {
      this.saved.delete(r.key);
      this.forgotten.add(r.key);
    });
    void forgetUnfinished(ended.map((r) => unfinishedId(this.userId, this.projectId, r.key)));
  }

  private async save(): Promise<void> {
    const now = Date.now();
    const rows = this.queue.getSnapshot().rows.filter((r) => resumable(r) && this.saved.get(r.key) !== r.sent);
    const records = rows.map<UnfinishedUpload>((r) => ({
      id: unfinishedId(this.userId, this.projectId, r.key),
      userId: this.userId,
      projectId: this.projectId,
      projectName: this.options.projectName,
      path: r.path,
      folder: r.folder,
      size: r.file.size,
      lastModified: r.file.lastModified,
      sent: r.sent,
      savedAt: now,
    }));
    rows.forEach((r) => this.saved.set(r.key, r.sent));
    await saveUnfinished(records);
  }
}

/**
 * Every upload session of the signed-in page: the dialog takes one, the tray shows them all, and
 * they end when their work has ended and nothing shows them any more.
 */
export class UploadSessions {
  private sessions: UploadSession[] = [];
  private nextId = 1;
  private readonly listeners = new Set<() => void>();
  /** What a session does when it settles with no dialog to say so (the tray's host sets it). */
  private settledInBackground: (session: UploadSession, ...args: Parameters<SettledListener>) => void = () => undefined;

  onSettledInBackground(listener: (session: UploadSession, ...args: Parameters<SettledListener>) => void): void {
    this.settledInBackground = listener;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getSnapshot = (): readonly UploadSession[] => this.sessions;

  /** The project's session still at work (reopening the dialog shows it), or a new one. */
  attach(options: SessionOptions): UploadSession {
    const reused = options.replaces === undefined ? this.sessions.find((s) => s.projectId === options.projectId && !s.attached && s.options.replaces === undefined && s.busy) : undefined;
    const session = reused ?? this.create(options);
    session.attached = true;
    this.changed();
    return session;
  }

  /** A session for the tray alone (files picked again after a reload). */
  create(options: SessionOptions): UploadSession {
    const session = new UploadSession(this.nextId++, options);
    session.queue.onSettled(this.inBackground(session));
    this.sessions = [...this.sessions, session];
    this.changed();
    return session;
  }

  /** The dialog closed: an idle session ends with it, a busy one stays for the tray. */
  detach(session: UploadSession): void {
    session.attached = false;
    session.queue.onSettled(this.inBackground(session));
    // React's StrictMode unmounts and mounts at once: the check waits until that has passed.
    queueMicrotask(() => {
      if (session.attached || !this.sessions.includes(session)) return;
      if (session.busy) this.changed();
      else this.remove(session);
    });
  }

  private inBackground(session: UploadSession): SettledListener {
    return (rows, all) => {
      if (!session.attached) this.settledInBackground(session, rows, all);
      this.changed();
    };
  }

  /** The tray's close: sessions with nothing left to do are dropped. */
  dismissIdle(): void {
    for (const session of this.sessions) if (!session.attached && !session.busy) this.remove(session);
  }

  remove(session: UploadSession): void {
    session.dispose();
    this.sessions = this.sessions.filter((s) => s !== session);
    this.changed();
  }

  /** Sign-out or the page going: every upload stops, the server keeps its part for a resume. */
  disposeAll(): void {
    this.sessions.forEach((s) => s.dispose());
    this.sessions = [];
    this.changed();
  }

  changed(): void {
    // A new list, so that what reads it (useSyncExternalStore) sees a session attached or let go.
    this.sessions = [...this.sessions];
    this.listeners.forEach((l) => l());
  }
}
