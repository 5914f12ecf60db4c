import type { UploadRow } from '../model/upload-row';
import { findDuplicates } from './duplicates-api';
import { hashFiles } from './hash-files';

/** The rows whose bytes the project holds already, each with the name of the file it repeats. */
export async function screenDuplicates(projectId: number, rows: readonly UploadRow[]): Promise<Map<string, string>> {
  const hashes = await hashFiles(rows.map((r) => r.file));
  const asked = hashes.filter((h): h is string => h !== null);
  if (asked.length === 0) return new Map();
  const found = await findDuplicates(projectId, asked);
  const same = new Map<string, string>();
  rows.forEach((row, i) => {
    const original = found.get(hashes[i] ?? '');
    if (original) same.set(row.key, original.file);
  });
  return same;
}
