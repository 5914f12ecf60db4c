import { planSends } from '@portal/contract';
import type { Send, UploadRow } from './upload-row';

/**
 * A folder's files waiting to go, in the order listed (by path): the small ones packed into
 * bundles (the contract's planSends, so the same files always make the same bundles and an
 * interrupted bundle resumes), the large ones alone. Sends come out in the order of their first file.
 */
export function planFolder(rows: readonly UploadRow[], folder: string, nextId: () => number): Send[] {
  return planSends(rows.map((row) => ({ key: row.key, size: row.file.size })))
    .map((group) => group.map((g) => g.key))
    .map((keys) => ({ id: nextId(), keys, folder, bundle: keys.length > 1 }));
}

/** A file picked alone is one send. */
export function planAlone(row: UploadRow, nextId: () => number): Send {
  return { id: nextId(), keys: [row.key], folder: row.folder, bundle: false };
}
