// The de-identified file's header: the preamble, the file meta group and the top-level elements up
// to Pixel Data, each element from one of three places: copied from the input as it was (passed
// through, part10.ts), written by the engine (plain ASCII text, encode.ts), or written by dcmjs
// (the rest: sequences, numbers, other character sets). dcmjs sorts what it writes by tag; so do we.
import dcmjs, { type Dict } from 'dcmjs';
import { encodeElement } from './encode.js';
import { text } from './method.js';
import { EXPLICIT_LE, part10Header, writtenElements, type Chunk, type Part10 } from './part10.js';

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
    const byDcmjs = writtenByDcmjs(metaChunks.left, chunks.left);
    metaChunks.own.push(...byDcmjs.meta);
    chunks.own.push(...byDcmjs.dataset);
  }
  return part10File(sorted(metaChunks.own), sorted(chunks.own));
}

/** Meta and dataset elements as dcmjs writes them in explicit VR little endian, each as its bytes. */
export function writtenByDcmjs(meta: Dict, dataset: Dict): { meta: Chunk[]; dataset: Chunk[] } {
  const written = new dcmjs.data.DicomDict({ ...meta, [TRANSFER_SYNTAX]: { vr: 'UI', Value: [EXPLICIT_LE] } });
  written.dict = dataset;
  return writtenElements(new Uint8Array(written.write()));
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

/** The header of the output: the meta group, then the dataset's elements. */
function part10File(meta: readonly Chunk[], dataset: readonly Chunk[]): Uint8Array {
  const { file, datasetAt } = part10Header(meta.map((c) => c.bytes), dataset.reduce((n, c) => n + c.bytes.length, 0));
  let at = datasetAt;
  for (const { bytes } of dataset) { file.set(bytes, at); at += bytes.length; }
  return file;
}
