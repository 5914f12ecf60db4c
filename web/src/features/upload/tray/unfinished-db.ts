// The IndexedDB store behind unfinished-store.ts, opened by the page (to list) and by its worker
// (to write): nothing here reads the page's localStorage, so a worker may load it.

const DB_NAME = 'portal-uploads';
const STORE = 'unfinished';
let opened: Promise<IDBDatabase | null> | null = null;

export function request<T>(req: IDBRequest<T>): Promise<T> {
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

export async function withStore<T>(mode: IDBTransactionMode, work: (store: IDBObjectStore) => Promise<T>, fallback: T): Promise<T> {
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

/**
 * Writes and deletions go in transactions of this many records, one after the other: the browser
 * copies each record on the page's thread, and 2,000 in one transaction held the page for 0.2–0.3 s.
 */
const RECORDS_PER_TRANSACTION = 200;

/** Writes run one after another, in the order asked: a deletion never overtakes the write before it. */
let writing: Promise<void> = Promise.resolve();

function inTurns<T>(items: readonly T[], work: (store: IDBObjectStore, item: T) => void): Promise<void> {
  if (items.length === 0) return writing;
  writing = writing.then(async () => {
    for (let at = 0; at < items.length; at += RECORDS_PER_TRANSACTION) {
      const part = items.slice(at, at + RECORDS_PER_TRANSACTION);
      await withStore(
        'readwrite',
        (store) => {
          for (const item of part) work(store, item);
          return Promise.resolve();
        },
        undefined,
      );
    }
  });
  return writing;
}

/** Records written (replaced by id) and ids deleted, in the order asked. */
export function putRecords(records: readonly object[]): Promise<void> {
  return inTurns(records, (store, record) => store.put(record));
}

export function deleteRecords(ids: readonly string[]): Promise<void> {
  return inTurns(ids, (store, id) => store.delete(id));
}
