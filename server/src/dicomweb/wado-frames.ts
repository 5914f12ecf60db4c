// Where each frame of a stored instance lies (PS3.5 A.4 for encapsulated pixel data, PS3.5 8.1.1
// for native), so that /frames/{list} sends a frame's stored bytes read by range, never the whole
// instance into memory. The fragment list of an encapsulated instance is found by one streamed
// pass over its item headers and remembered (a multi-frame instance is asked frame by frame).
import type { Storage } from '../storage/storage.js';
import { streamInstance, type ReadHeader } from './wado-read.js';
import type { StoredInstance } from './wado-repository.js';

export const DEFLATED = '1.2.840.10008.1.2.1.99';
const NATIVE = new Set(['1.2.840.10008.1.2', '1.2.840.10008.1.2.1', '1.2.840.10008.1.2.2']);
const UNDEFINED_LENGTH = 0xffffffff;

/** A run of the instance's bytes (instance-relative, `length` bytes from `start`). */
export interface Run {
  start: number;
  length: number;
}

export type PixelLayout =
  | { kind: 'native'; start: number; length: number; frameBytes: number; frames: number }
  | { kind: 'encapsulated'; start: number; frames: number }
  | { kind: 'none'; why: string };

export const isNative = (syntax: string) => NATIVE.has(syntax);

const frameCount = (header: ReadHeader) => {
  const written = header.dataSet.string('x00280008')?.trim();
  const n = written && /^\d+$/.test(written) ? Number(written) : 1;
  return n > 0 ? n : 1;
};

/** The pixel data of an instance, from its header. */
export function pixelLayout(header: ReadHeader, syntax: string): PixelLayout {
  const element = header.dataSet.elements.x7fe00010;
  if (element === undefined) return { kind: 'none', why: 'This instance has no pixel data, so it has no frames' };
  if (syntax === DEFLATED) return { kind: 'none', why: 'This instance is stored deflated, so its frames cannot be sent in its stored transfer syntax; retrieve the instance instead' };
  const frames = frameCount(header);
  const undefinedLength = element.hadUndefinedLength === true || element.length === UNDEFINED_LENGTH;
  if (undefinedLength) return { kind: 'encapsulated', start: element.dataOffset, frames };
  if (!isNative(syntax)) return { kind: 'none', why: 'This instance’s pixel data does not match its transfer syntax, so its frames cannot be told apart' };
  const rows = header.dataSet.uint16('x00280010') ?? 0;
  const columns = header.dataSet.uint16('x00280011') ?? 0;
  const samples = header.dataSet.uint16('x00280002') ?? 1;
  const bits = header.dataSet.uint16('x00280100') ?? 8;
  const photometric = header.dataSet.string('x00280004')?.trim() ?? '';
  // YBR_FULL_422 keeps two samples per pixel (PS3.3 C.7.6.3.1.2).
  const perPixel = photometric.startsWith('YBR') && photometric.endsWith('_422') ? 2 : samples;
  const frameBits = rows * columns * perPixel * bits;
  const frameBytes = frames === 1 ? element.length : frameBits % 8 === 0 ? frameBits / 8 : 0;
  if (frameBytes <= 0) return { kind: 'none', why: 'This instance’s frames do not start on byte boundaries, so they cannot be sent one by one; retrieve the instance instead' };
  return { kind: 'native', start: element.dataOffset, length: element.length, frameBytes, frames };
}

/** A frame's bytes of a native instance (frame numbers from 1). */
export function nativeFrame(layout: Extract<PixelLayout, { kind: 'native' }>, frame: number): Run {
  return { start: layout.start + (frame - 1) * layout.frameBytes, length: Math.min(layout.frameBytes, layout.length - (frame - 1) * layout.frameBytes) };
}

interface Fragment extends Run {
  /** Where the fragment's item header starts (instance-relative). */
  itemAt: number;
  /** Its first bytes: a JPEG SOI (FFD8) or JPEG 2000 SOC (FF4F) marks a frame's first fragment. */
  head: Buffer;
}

interface Items {
  /** The Basic Offset Table: each frame's first item, counted from the first fragment's item. */
  offsets: number[];
  fragments: Fragment[];
}

/** The Basic Offset Table and the fragments after it, read item header by item header from one stream. */
async function scanItems(storage: Storage, instance: StoredInstance, start: number): Promise<Items> {
  const stream = await streamInstance(storage, instance, start);
  const offsets: number[] = [];
  const fragments: Fragment[] = [];
  const table: Buffer[] = [];
  let inTable = false;
  let seenTable = false;
  let at = start; // instance-relative position of the next unread byte
  let header = Buffer.alloc(0);
  let remaining = 0; // bytes of the current item's value still to pass
  try {
    for await (const raw of stream) {
      let chunk = raw as Buffer;
      while (chunk.length > 0) {
        if (remaining > 0) {
          const piece = chunk.subarray(0, Math.min(remaining, chunk.length));
          const current = fragments.at(-1);
          if (inTable) table.push(piece);
          else if (current && current.head.length < 2) current.head = Buffer.concat([current.head, piece.subarray(0, 2 - current.head.length)]);
          remaining -= piece.length;
          at += piece.length;
          chunk = chunk.subarray(piece.length);
          if (remaining === 0 && inTable) {
            const bytes = Buffer.concat(table);
            for (let i = 0; i + 4 <= bytes.length; i += 4) offsets.push(bytes.readUInt32LE(i));
            inTable = false;
          }
          continue;
        }
        const piece = chunk.subarray(0, 8 - header.length);
        header = Buffer.concat([header, piece]);
        at += piece.length;
        chunk = chunk.subarray(piece.length);
        if (header.length < 8) continue;
        const group = header.readUInt16LE(0);
        const element = header.readUInt16LE(2);
        const length = header.readUInt32LE(4);
        header = Buffer.alloc(0);
        if (group !== 0xfffe || element === 0xe0dd) return { offsets, fragments };
        if (element !== 0xe000 || length === UNDEFINED_LENGTH) throw new Error('not an item');
        if (!seenTable) {
          seenTable = true;
          inTable = length > 0;
        } else fragments.push({ start: at, length, itemAt: at - 8, head: Buffer.alloc(0) });
        remaining = length;
      }
    }
  } finally {
    stream.destroy();
  }
  // The stream ended without a sequence delimiter: what was read whole is kept.
  return { offsets, fragments: fragments.filter((f) => f.start + f.length <= at) };
}

/** The fragments of each frame (PS3.5 A.4: by the Basic Offset Table, else one per frame, else by start markers). */
function framesOf(items: Items, frames: number): Run[][] {
  const { fragments, offsets } = items;
  const runs = (list: Fragment[]): Run[] => list.map((f) => ({ start: f.start, length: f.length }));
  if (frames === 1) return [runs(fragments)];
  const first = fragments[0]?.itemAt ?? 0;
  if (offsets.length === frames) {
    return offsets.map((from, i) => runs(fragments.filter((f) => f.itemAt - first >= from && (i + 1 === offsets.length || f.itemAt - first < offsets[i + 1]!))));
  }
  if (fragments.length === frames) return fragments.map((f) => runs([f]));
  const grouped: Fragment[][] = [];
  for (const fragment of fragments) {
    const marker = fragment.head.length === 2 ? fragment.head.readUInt16BE(0) : 0;
    if (grouped.length === 0 || marker === 0xffd8 || marker === 0xff4f) grouped.push([fragment]);
    else grouped.at(-1)!.push(fragment);
  }
  return grouped.map(runs);
}

/** Fragment lists by instance location: a viewer asks a multi-frame instance frame by frame. */
const remembered = new Map<string, Run[][]>();
const REMEMBERED = 2000;

/** The runs of bytes that make each frame of an encapsulated instance. */
export async function encapsulatedFrames(storage: Storage, instance: StoredInstance, layout: Extract<PixelLayout, { kind: 'encapsulated' }>): Promise<Run[][]> {
  const key = `${instance.storageKey}@${instance.offset}`;
  const known = remembered.get(key);
  if (known) return known;
  const frames = framesOf(await scanItems(storage, instance, layout.start), layout.frames);
  if (remembered.size >= REMEMBERED) remembered.delete(remembered.keys().next().value!);
  remembered.set(key, frames);
  return frames;
}
