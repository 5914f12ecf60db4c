// The de-identified file's header: the preamble, the file meta group and the top-level elements up
// to Pixel Data, each element from one of three places: copied from the input as it was (passed
// through, part10.ts), written by the engine (plain ASCII text, encode.ts), or written by dcmjs
// (the rest: sequences, numbers, other character sets). dcmjs sorts what it writes by tag; so do we.
import dcmjs, { type Dict } from 'dcmjs';
import { encodeElement } from './encode.js';
import { text } from './method.js';
import { EXPLICIT_LE, writtenElements, type Chunk, type Part10 } from './part10.js';

const TRANSFER_SYNTAX = '00020010';

/**
 * `premade`: elements of `dataset` whose bytes were made once for many files (the engine's method
 * code sequence for a policy). An output in another transfer syntax than explicit little endian
 * (an implicit or big-endian input keeps its syntax) is dcmjs's alone, and nothing was passed through.
 */
export function writeHeader(meta: Dict, dataset: Dict, passed: Part10['passedThrough'], premade: ReadonlyMap<string, Chunk>): Uint8Array {
  if (text(meta, TRANSFER_SYNTAX) !== EXPLICIT_LE) {
    const written = new dcmjs.data.DicomDict(meta);
    written.dict = dataset;
    return new Uint8Array(written.write());
  }
  const metaChunks = encoded(meta, new Map());
  const chunks = encoded(dataset, premade);
  chunks.own.push(...passed.elements.map((e) => ({ tag: e.tag, bytes: passed.source.subarray(e.start, e.end) })));
  if (Object.keys(metaChunks.left).length > 0 || Object.keys(chunks.left).length > 0) {
    const written = new dcmjs.data.DicomDict({ ...metaChunks.left, [TRANSFER_SYNTAX]: { vr: 'UI', Value: [EXPLICIT_LE] } });
    written.dict = chunks.left;
    const byDcmjs = writtenElements(new Uint8Array(written.write()));
    metaChunks.own.push(...byDcmjs.meta);
    chunks.own.push(...byDcmjs.dataset);
  }
  return part10File(sorted(metaChunks.own), sorted(chunks.own));
}

/** Elements whose bytes the engine writes, and the others for dcmjs. */
function encoded(elements: Dict, premade: ReadonlyMap<string, Chunk>): { own: Chunk[]; left: Dict } {
  const own: Chunk[] = [];
  const left: Dict = {};
  for (const [hex, element] of Object.entries(elements)) {
    const tag = Number.parseInt(hex, 16);
    const bytes = premade.get(hex)?.bytes ?? encodeElement(tag, element);
    if (bytes) own.push({ tag, bytes });
    else left[hex] = element;
  }
  return { own, left };
}

function sorted(chunks: Chunk[]): Chunk[] {
  chunks.sort((a, b) => a.tag - b.tag);
  // An element both passed through and written would appear twice: the engine never passes through what it writes.
  for (let i = 1; i < chunks.length; i++) if (chunks[i]!.tag === chunks[i - 1]!.tag) throw new Error(`element ${chunks[i]!.tag.toString(16)} written twice`);
  return chunks;
}

/** Preamble, "DICM", the meta group with its length, the dataset: as dcmjs's DicomDict.write lays them out. */
function part10File(meta: readonly Chunk[], dataset: readonly Chunk[]): Uint8Array {
  const metaLength = meta.reduce((n, c) => n + c.bytes.length, 0);
  const out = new Uint8Array(144 + metaLength + dataset.reduce((n, c) => n + c.bytes.length, 0));
  out.set([0x44, 0x49, 0x43, 0x4d], 128);
  out.set([0x02, 0x00, 0x00, 0x00, 0x55, 0x4c, 0x04, 0x00], 132);
  new DataView(out.buffer).setUint32(140, metaLength, true);
  let at = 144;
  for (const { bytes } of [...meta, ...dataset]) { out.set(bytes, at); at += bytes.length; }
  return out;
}
