import { DeidentificationError, deidentifyParts, NeedsWholeFile, type Policy } from '@portal/deid';
import { BUNDLE_MAX_MEMBER_BYTES, tarMemberHeader, tarPadding } from '@portal/contract/delivery-bundle';
import { coalesced } from '../api/bundle';
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
 * A picked file at most this large (every member of a bundle: BUNDLE_MAX_MEMBER_BYTES) is read
 * whole and answered as bytes: each Blob made or sliced costs ~0.8 ms in Chromium (a round trip to
 * the browser process), more than the engine takes for a CT slice, while copying its Pixel Data
 * costs microseconds. A larger file is answered as a Blob of its new header and its own Pixel
 * Data, never read whole.
 */
export const WHOLE_READ_BYTES = BUNDLE_MAX_MEMBER_BYTES;

/**
 * Files de-identified together: their bytes (a small file's whole, a larger one's first bytes, a
 * zip entry's whole) read all at once, each read a round trip to the browser process that waits
 * beside the others. Not as one Blob joining them: Chromium makes that Blob on the worker's thread
 * (~8 ms for 32 files, 0.4 of the 2.5 ms a CT slice took in the worker's profile). A file whose
 * header is longer than its first read is read again whole. The small files made are views into
 * one buffer, so the worker hands them over without a copy.
 */
export async function runDeidBatch(batch: DeidBatch): Promise<DeidOutcome[]> {
  return inOneBuffer(await deidentifyAll(batch));
}

async function deidentifyAll(batch: DeidBatch): Promise<(DeidOutcome | MadeBytes)[]> {
  const whole = batch.files.map(({ file, compression }) => compression === 'deflate' || file.size <= WHOLE_READ_BYTES);
  const reads = await Promise.all(batch.files.map(({ file }, i) => bytesOf(whole[i] ? file : file.slice(0, FIRST_READ_BYTES))));
  const outcomes: (DeidOutcome | MadeBytes)[] = [];
  for (const [i, { file, compression }] of batch.files.entries()) {
    outcomes.push(await deidentifyOne({ file, compression, read: reads[i] as Uint8Array, whole: whole[i] as boolean }, batch.policy, batch.key));
  }
  return outcomes;
}

/** Files of a bundle: each with the path and time its tar member carries, in the order of `files`. */
export interface DeidPackBatch extends DeidBatch {
  members: { path: string; mtimeMs: number }[];
}

/** A batch of a bundle's members: the tar members of those made, in order, and those refused by their path. */
export interface PackedMembers {
  tar: Blob;
  refused: { path: string; reason: string }[];
}

/**
 * A bundle's files de-identified and packed here as tar members (header, made bytes, padding: the
 * bytes packBundle would give for the made files), written once into one buffer and answered as
 * one Blob made on this thread. The page then joins a few Blobs into the bundle instead of handing
 * every file's bytes to a packer: those copies cost the page ~0.9 s of 2,000 CT slices (a
 * structured clone of each batch's buffer) and the packer ~2 s, at load, in the delivery's profile.
 */
export async function packDeidBatch(batch: DeidPackBatch): Promise<PackedMembers> {
  const outcomes = await deidentifyAll(batch);
  const parts: (BlobPart | Uint8Array)[] = [];
  const refused: PackedMembers['refused'] = [];
  outcomes.forEach((outcome, index) => {
    const { path, mtimeMs } = batch.members[index] as DeidPackBatch['members'][number];
    if (!(outcome instanceof MadeBytes) && 'refused' in outcome) {
      refused.push({ path, reason: outcome.refused });
      return;
    }
    const made = outcome instanceof MadeBytes ? outcome.pieces() : [outcome.made];
    const size = made.reduce((n, piece) => n + (piece instanceof Blob ? piece.size : piece.length), 0);
    parts.push(tarMemberHeader({ path, size, mtimeMs }), ...made, tarPadding(size));
  });
  return { tar: new Blob(coalesced(parts)), refused };
}

/** A small file made: the engine's new header, then the range `tail` of the bytes read (its Pixel Data). */
class MadeBytes {
  constructor(
    readonly head: Uint8Array,
    readonly input: Uint8Array,
    readonly tail: { start: number; end: number } | null,
  ) {}

  get length(): number {
    return this.head.length + (this.tail ? this.tail.end - this.tail.start : 0);
  }

  /** Its bytes as they lie: the new header, then its Pixel Data in the bytes read. */
  pieces(): Uint8Array[] {
    return this.tail ? [this.head, this.input.subarray(this.tail.start, this.tail.end)] : [this.head];
  }

  copyInto(buffer: Uint8Array, at: number): void {
    buffer.set(this.head, at);
    if (this.tail) buffer.set(this.input.subarray(this.tail.start, this.tail.end), at + this.head.length);
  }
}

/** The made bytes of the batch written once, into one buffer (transferable at once), each outcome a view of it. */
function inOneBuffer(outcomes: readonly (DeidOutcome | MadeBytes)[]): DeidOutcome[] {
  const total = outcomes.reduce((n, o) => n + (o instanceof MadeBytes ? o.length : 0), 0);
  const buffer = new Uint8Array(total);
  let at = 0;
  return outcomes.map((outcome) => {
    if (!(outcome instanceof MadeBytes)) return outcome;
    outcome.copyInto(buffer, at);
    at += outcome.length;
    return { made: buffer.subarray(at - outcome.length, at) };
  });
}

/** The buffers a batch's answer can hand over rather than copy. */
export function transferablesOf(outcomes: readonly DeidOutcome[]): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const outcome of outcomes) if ('made' in outcome && outcome.made instanceof Uint8Array) buffers.add(outcome.made.buffer);
  return [...buffers];
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

/**
 * `read`: the file's bytes as read (all of them when `whole`, still compressed for a zip entry;
 * else its first bytes). A file read whole is answered as its made bytes' parts, a larger one as a Blob.
 */
async function deidentifyOne(
  { file, compression, read, whole }: { file: Blob; compression: Compression; read: Uint8Array; whole: boolean },
  policy: Policy,
  key: Uint8Array,
): Promise<DeidOutcome | MadeBytes> {
  try {
    if (compression === 'deflate') {
      let input: Uint8Array;
      try {
        input = inflateSync(read);
      } catch {
        return { refused: DAMAGED_ENTRY };
      }
      // The tail is a range of the unpacked bytes, not of the picked (compressed) entry.
      const { head, tail } = deidentifyParts(input, policy, key);
      return new MadeBytes(head, input, tail);
    }
    if (whole) {
      const { head, tail } = deidentifyParts(read, policy, key);
      return new MadeBytes(head, read, tail);
    }
    try {
      const { head, tail } = deidentifyParts(read, policy, key, file.size);
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
