import { DeidentificationError, deidentify, type Policy } from '@portal/deid';
import { inflateSync } from 'fflate';
import type { Compression } from '../archives/entry-source';

export interface DeidTask {
  file: Blob;
  compression: Compression;
  policy: Policy;
  key: Uint8Array;
}

/** The de-identified bytes, or why the file must be left out (in words for the person sending it). */
export type DeidOutcome = { bytes: Uint8Array } | { refused: string };

export const DAMAGED_ENTRY = 'This entry of the archive is damaged and cannot be unpacked, so it is left out.';
export const UNREADABLE_DICOM = 'This file could not be read as DICOM, so its patient identity cannot be removed; it is left out.';

/** One file read, unpacked if it is a zip entry, and de-identified: the same in a worker and in tests. */
export async function runDeidTask(task: DeidTask): Promise<DeidOutcome> {
  const raw = new Uint8Array(await task.file.arrayBuffer());
  let input: Uint8Array;
  try {
    input = task.compression === 'deflate' ? inflateSync(raw) : raw;
  } catch {
    return { refused: DAMAGED_ENTRY };
  }
  try {
    return { bytes: deidentify(input, task.policy, task.key).bytes };
  } catch (error) {
    // dcmjs throws its own errors on broken files; the sender gets words, not a parser's message.
    return { refused: error instanceof DeidentificationError ? error.message : UNREADABLE_DICOM };
  }
}
