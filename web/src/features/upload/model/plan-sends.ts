import { planBundles } from '@portal/contract';
import type { Send, UploadRow } from './upload-row';

/**
 * A folder's files waiting to go, in the order listed (by path): the small ones packed into
 * bundles (the contract's planBundles, so the same files always make the same bundles and an
 * interrupted bundle resumes), the large ones alone. A bundle of one file goes alone: a tar
 * around it would buy nothing. Sends come out in the order of their first file.
 */
export function planFolder(rows: readonly UploadRow[], folder: string, nextId: () => number): Send[] {
  const order = new Map(rows.map((r, i) => [r.key, i]));
  const { bundles, alone } = planBundles(rows.map((row) => ({ key: row.key, size: row.file.size })));
  const groups = [...bundles, ...alone.map((one) => [one])];
  return groups
    .map((group) => group.map((g) => g.key))
    .sort((a, b) => (order.get(a[0] ?? '') ?? 0) - (order.get(b[0] ?? '') ?? 0))
    .map((keys) => ({ id: nextId(), keys, folder, bundle: keys.length > 1 }));
}

/** A file picked alone is one send. */
export function planAlone(row: UploadRow, nextId: () => number): Send {
  return { id: nextId(), keys: [row.key], folder: row.folder, bundle: false };
}
