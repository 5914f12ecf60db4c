import { readStoredUser } from '../../../lib/storage';
import { deleteRecords, putRecords, request, withStore } from './unfinished-db';

export { closeUnfinishedStore } from './unfinished-db';
import type { WriteAnswer, WriteRequest } from './unfinished-store.worker';

/**
 * What the browser remembers of an upload that has not finished, so that after a reload or a crash
 * the tray can list it and ask for the same file again. Kept in IndexedDB, never sent to the server:
 * the bytes themselves stay where the server has them (tus), this only says what to pick.
 */
export interface UnfinishedUpload {
  /** The user, project and file's identity (path, size, modification time), as one string. */
  id: string;
  userId: number | null;
  projectId: number;
  projectName: string | null;
  /** The file's path as picked (a folder's files start with the folder's name). */
  path: string;
  /** The picked folder (or archive opened here) the file belongs to; null for a file picked alone. */
  folder: string | null;
  size: number;
  lastModified: number;
  /** Bytes the server had or was receiving when last heard. */
  sent: number;
  savedAt: number;
}

/** The server forgets an unfinished upload after 24 h: an older entry could no longer be resumed. */
export const UNFINISHED_MAX_AGE_MS = 24 * 60 * 60 * 1000;

export function unfinishedId(userId: number | null, projectId: number, rowKey: string): string {
  return JSON.stringify([userId, projectId, rowKey]);
}

export function currentUserId(): number | null {
  return readStoredUser()?.id ?? null;
}

/** The signed-in user's unfinished uploads, oldest first; entries past the server's expiry are dropped. */
export async function listUnfinished(userId: number | null, now = Date.now()): Promise<UnfinishedUpload[]> {
  const all = await withStore('readonly', (store) => request(store.getAll() as IDBRequest<UnfinishedUpload[]>), []);
  const stale = all.filter((u) => now - u.savedAt > UNFINISHED_MAX_AGE_MS).map((u) => u.id);
  if (stale.length > 0) await forgetUnfinished(stale);
  return all.filter((u) => u.userId === userId && now - u.savedAt <= UNFINISHED_MAX_AGE_MS).sort((a, b) => a.savedAt - b.savedAt || a.path.localeCompare(b.path));
}

let writer: Worker | null | undefined;
let nextRequest = 1;
const asked = new Map<number, { request: WriteRequest; done: () => void }>();

/** Here, on the page's thread: where there are no workers (tests in jsdom), or after the worker failed. */
function writeHere(request: WriteRequest): Promise<void> {
  return request.op === 'put' ? putRecords(request.items) : deleteRecords(request.items);
}

/**
 * The worker that writes the store (issue 36 item 5): a 2,000-file folder rewrites up to 2,000
 * records a second while its bundles go, which held the page's thread for 0.4–0.5 s per send.
 */
function storeWriter(): Worker | null {
  if (writer !== undefined) return writer;
  if (typeof Worker === 'undefined') return (writer = null);
  const started = new Worker(new URL('./unfinished-store.worker.ts', import.meta.url), { type: 'module' });
  started.onmessage = (event: MessageEvent<WriteAnswer>) => {
    asked.get(event.data.id)?.done();
    asked.delete(event.data.id);
  };
  started.onerror = () => {
    // The worker could not start (or died): what it was asked, and what follows, is written here.
    writer = null;
    started.terminate();
    const left = [...asked.values()];
    asked.clear();
    void left.reduce((turn, { request, done }) => turn.then(() => writeHere(request)).then(done), Promise.resolve());
  };
  return (writer = started);
}

function write(request: WriteRequest): Promise<void> {
  const worker = storeWriter();
  if (!worker) return writeHere(request);
  return new Promise((done) => {
    asked.set(request.id, { request, done });
    worker.postMessage(request);
  });
}

export function saveUnfinished(uploads: readonly UnfinishedUpload[]): Promise<void> {
  return uploads.length === 0 ? Promise.resolve() : write({ id: nextRequest++, op: 'put', items: [...uploads] });
}

export function forgetUnfinished(ids: readonly string[]): Promise<void> {
  return ids.length === 0 ? Promise.resolve() : write({ id: nextRequest++, op: 'delete', items: [...ids] });
}
