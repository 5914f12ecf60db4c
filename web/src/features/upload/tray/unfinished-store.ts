import { readStoredUser } from '../../../lib/storage';

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

const DB_NAME = 'portal-uploads';
const STORE = 'unfinished';
/** The server forgets an unfinished upload after 24 h: an older entry could no longer be resumed. */
export const UNFINISHED_MAX_AGE_MS = 24 * 60 * 60 * 1000;

let opened: Promise<IDBDatabase | null> | null = null;

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB request failed'));
  });
}

/** Null where the browser keeps no IndexedDB (a private window of some browsers): the tray then only shows this page's uploads. */
function database(): Promise<IDBDatabase | null> {
  if (typeof indexedDB === 'undefined') return Promise.resolve(null);
  opened ??= new Promise<IDBDatabase | null>((resolve) => {
    const req = indexedDB.open(DB_NAME, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE, { keyPath: 'id' });
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => resolve(null);
    req.onblocked = () => resolve(null);
  });
  return opened;
}

/** For tests: the next call opens the database again (after it was deleted). */
export function closeUnfinishedStore(): void {
  void opened?.then((db) => db?.close());
  opened = null;
}

async function withStore<T>(mode: IDBTransactionMode, work: (store: IDBObjectStore) => Promise<T>, fallback: T): Promise<T> {
  const db = await database();
  if (!db) return fallback;
  try {
    const tx = db.transaction(STORE, mode);
    const result = await work(tx.objectStore(STORE));
    await new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error ?? new Error('IndexedDB transaction failed'));
      tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
    });
    return result;
  } catch {
    // A full or broken store costs the list after a reload, never the upload itself.
    return fallback;
  }
}

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

export async function saveUnfinished(uploads: readonly UnfinishedUpload[]): Promise<void> {
  if (uploads.length === 0) return;
  await withStore(
    'readwrite',
    (store) => {
      for (const upload of uploads) store.put(upload);
      return Promise.resolve();
    },
    undefined,
  );
}

export async function forgetUnfinished(ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await withStore(
    'readwrite',
    (store) => {
      for (const id of ids) store.delete(id);
      return Promise.resolve();
    },
    undefined,
  );
}
