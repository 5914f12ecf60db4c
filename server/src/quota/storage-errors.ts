// Running out of space, wherever it is noticed (a file write, SQLite, PostgreSQL), is answered
// 507 with what to do, never 500: the person can act on it and the operator must.
import { AppError } from '../errors/app-error.js';

export const LOW_STORAGE_MESSAGE =
  'The server is low on storage, so it takes no new uploads for now; signing in, downloads and deletes still work. ' +
  'Try the upload again later, and tell the portal’s administrator so that space can be freed or added.';

export const STORAGE_FULL_MESSAGE =
  'The server is low on storage and could not save this; nothing of it was kept. ' +
  'Try again later, and tell the portal’s administrator so that space can be freed or added.';

/** New uploads are refused while free space is below MIN_FREE_BYTES. */
export class LowStorageError extends AppError {
  constructor() {
    super(507, LOW_STORAGE_MESSAGE);
    this.name = 'LowStorageError';
  }
}

// ENOSPC and EDQUOT from the filesystem, SQLITE_FULL from better-sqlite3, 53100 (disk_full) from PostgreSQL.
const FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL', '53100']);

/** Whether `err`, or what caused it, says the storage is full. */
export function isStorageFull(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && FULL_CODES.has(code)) return true;
  }
  return false;
}

/** `err` as the 507 a person reads when the storage is full; otherwise `err` itself. */
export function explainStorageFull(err: unknown): unknown {
  return isStorageFull(err) ? new AppError(507, STORAGE_FULL_MESSAGE) : err;
}
