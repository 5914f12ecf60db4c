import { DeidentificationError, deidentifyParts, NeedsWholeFile, type Policy } from '@portal/deid';
import { inflateSync } from 'fflate';
import type { Compression } from '../archives/entry-source';
import type { DeidOutcome } from './deid-batch';

export const DAMAGED_ENTRY = 'This entry of the archive is damaged and cannot be unpacked, so it is left out.';
export const UNREADABLE_DICOM = 'This file could not be read as DICOM, so its patient identity cannot be removed; it is left out.';

/** Read first: a CT or MR header fits with room to spare; a longer one is read whole. */
export const FIRST_READ_BYTES = 64 * 1024;

async function bytesOf(blob: Blob): Promise<Uint8Array> {
  return new Uint8Array(await blob.arrayBuffer());
}

export interface DeidBatch {
  files: { file: Blob; compression: Compression }[];
  policy: Policy;
  key: Uint8Array;
}

/**
 * Files de-identified together: their first bytes (a zip entry's whole) read as ONE Blob, since
 * every read of a picked file is a round trip to the browser process (~3 ms each on 2 busy cores,
 * more than the engine takes for a CT slice); a file whose header is longer is read again whole.
 */
export async function runDeidBatch(batch: DeidBatch): Promise<DeidOutcome[]> {
  const firsts = batch.files.map(({ file, compression }) => (compression === 'deflate' ? file : file.slice(0, FIRST_READ_BYTES)));
  const joined = await bytesOf(new Blob(firsts));
  const outcomes: DeidOutcome[] = [];
  let at = 0;
  for (const [i, { file, compression }] of batch.files.entries()) {
    const first = joined.subarray(at, at + (firsts[i] as Blob).size);
    at += first.length;
    outcomes.push(await deidentifyOne({ file, compression, first }, batch.policy, batch.key));
  }
  return outcomes;
}

/**
 * The made file as a Blob of the engine's new header and the picked file's range (Pixel Data,
 * unchanged), built here rather than on the page's thread: Chromium's Blob.slice and Blob
 * constructor cost ~1–2 ms each on 2 busy cores, and the page would pay that per file. Pixel Data
 * is never read into memory or copied: the browser sends it from the picked file.
 */
function madeOf(file: Blob, head: Uint8Array, tail: { start: number; end: number } | null): Blob {
  if (head.length === 0 && tail && tail.start === 0 && tail.end === file.size) return file;
  const parts: BlobPart[] = [head as Uint8Array<ArrayBuffer>];
  if (tail) parts.push(file.slice(tail.start, tail.end));
  return new Blob(parts);
}

/** `first`: the file's first bytes (all of a zip entry's, still compressed), unpacked here if it is a zip entry. */
async function deidentifyOne(
  { file, compression, first }: { file: Blob; compression: Compression; first: Uint8Array },
  policy: Policy,
  key: Uint8Array,
): Promise<DeidOutcome> {
  try {
    if (compression === 'deflate') {
      let input: Uint8Array;
      try {
        input = inflateSync(first);
      } catch {
        return { refused: DAMAGED_ENTRY };
      }
      // The tail is a range of the unpacked bytes, not of the picked (compressed) entry.
      const { head, tail } = deidentifyParts(input, policy, key);
      const parts = tail ? [head, input.subarray(tail.start, tail.end)] : [head];
      return { made: new Blob(parts as Uint8Array<ArrayBuffer>[]) };
    }
    try {
      const { head, tail } = deidentifyParts(first, policy, key, file.size);
      return { made: madeOf(file, head, tail) };
    } catch (error) {
      if (!(error instanceof NeedsWholeFile)) throw error;
      const { head, tail } = deidentifyParts(await bytesOf(file), policy, key);
      return { made: madeOf(file, head, tail) };
    }
  } catch (error) {
    // dcmjs throws its own errors on broken files; the sender gets words, not a parser's message.
    return { refused: error instanceof DeidentificationError ? error.message : UNREADABLE_DICOM };
  }
}
