// Brings any readable DICOM stream into the one shape dcmjs reads (preamble, "DICM", a meta group
// with a transfer syntax, a non-deflated dataset) and finds, by our own scan of the top level, the
// byte ranges dcmjs must not rewrite: Pixel Data (kept byte for byte) and Specific Character Set.
import dcmjs from 'dcmjs';
import { DeidentificationError } from './errors.js';

export const IMPLICIT_LE = '1.2.840.10008.1.2';
export const EXPLICIT_LE = '1.2.840.10008.1.2.1';
export const EXPLICIT_BE = '1.2.840.10008.1.2.2';
const DEFLATED_LE = '1.2.840.10008.1.2.1.99';

const LONG_VRS = new Set(['OB', 'OD', 'OF', 'OL', 'OV', 'OW', 'SQ', 'UC', 'UN', 'UR', 'UT', 'SV', 'UV']);
const ALL_VRS = new Set([...LONG_VRS, 'AE', 'AS', 'AT', 'CS', 'DA', 'DS', 'DT', 'FD', 'FL', 'IS', 'LO', 'LT', 'PN',
  'SH', 'SL', 'SS', 'ST', 'TM', 'UI', 'UL', 'US']);
const UNDEFINED = 0xffffffff;
const PIXEL_DATA = 0x7fe00010;
const CHARSET = 0x00080005;

export interface Range { start: number; end: number }

/** A top-level element by its tag, tag to end of value, in `source`. */
export interface RawElement { tag: number; start: number; end: number }

/**
 * How a top-level element of an explicit little-endian dataset reaches the output without dcmjs
 * reading it (`vr` as written in the input): 'copy', byte for byte; 'stub', by its tag and VR alone,
 * for an action that does not look at the value (removed, emptied, a dummy). Undefined: dcmjs reads it.
 */
export type Route = (tag: number, vr: string) => 'copy' | 'stub' | undefined;

/** Values of these VRs are numbers or bytes; every other VR but SQ and UN holds text. */
const BINARY_VRS = new Set(['AT', 'FD', 'FL', 'OB', 'OD', 'OF', 'OL', 'OV', 'OW', 'SL', 'SS', 'SV', 'UL', 'US', 'UV']);

export interface Part10 {
  /** What dcmjs.readFile is given: a fresh buffer, so the caller's bytes are never touched. */
  file: ArrayBuffer;
  /** The transfer syntax of `file`'s dataset; `inputSyntax` differs only for a deflated input. */
  syntax: string;
  inputSyntax: string | undefined;
  /**
   * The top-level Pixel Data element (tag to end of value), never copied into `file`: a range of
   * the input (which may extend past a prefix), or of `inflated` for a deflated input.
   */
  pixelData: (Range & { inflated?: Uint8Array }) | undefined;
  /** The top-level Specific Character Set values as written in the input. */
  characterSet: string[];
  hadPreamble: boolean;
  /** Top-level private elements left out before reading. */
  privateRemoved: number;
  /** Top-level elements left out of `file` to be copied into the output unchanged (output.ts). */
  passedThrough: { source: Uint8Array; elements: RawElement[] };
  /** Top-level elements left out of `file` whose value is not needed: their tag and VR. */
  stubs: { tag: number; vr: string }[];
}

/**
 * Thrown when the input is a prefix of a file (`toPart10`'s `totalSize`) that ends before the
 * header does: the caller reads the whole file and tries again.
 */
export class NeedsWholeFile extends Error {
  constructor() {
    super('the header reaches beyond the bytes read');
    this.name = 'NeedsWholeFile';
  }
}

const unreadable = (why: string) =>
  new DeidentificationError('unreadable', `This DICOM file cannot be read completely (${why}), so it cannot be de-identified. Export it again from the imaging system.`);

/**
 * `input` is the whole file, or its first bytes when `totalSize` is larger: enough when they hold
 * every element before Pixel Data and Pixel Data's own header (a defined length); otherwise
 * NeedsWholeFile is thrown.
 */
export function toPart10(input: Uint8Array, totalSize = input.length, route?: Route): Part10 {
  const prefix = input.length < totalSize;
  const { hadPreamble, meta, inputSyntax, datasetAt } = readMeta(input, prefix);
  if (!hadPreamble && meta.length === 0 && !looksLikeDataset(input)) {
    throw new DeidentificationError('not-dicom', 'This file is not a DICOM file, so it is left out.');
  }
  let dataset = input.subarray(datasetAt);
  let syntax = inputSyntax ?? guessSyntax(dataset);
  let inflated: Uint8Array | undefined;
  if (syntax === DEFLATED_LE) {
    if (prefix) throw new NeedsWholeFile();
    try {
      // A copy of exactly the dataset: a Node Buffer's slice() is a view, and its .buffer the whole pool.
      const copy = Uint8Array.prototype.slice.call(dataset).buffer;
      const stream = new dcmjs.data.DeflatedReadBufferStream(new dcmjs.data.ReadBufferStream(copy));
      inflated = new Uint8Array(stream.getBuffer(0, stream.size));
      dataset = inflated;
    } catch {
      throw unreadable('its compressed dataset is damaged');
    }
    syntax = EXPLICIT_LE;
  }
  meta.push(metaElement(0x0010, 'UI', syntax));

  const little = syntax !== EXPLICIT_BE;
  const elements = scanTopLevel(dataset, little, syntax !== IMPLICIT_LE, inflated ? dataset.length : totalSize - datasetAt);
  // Top-level private elements are dropped here, before dcmjs reads: they go anyway, and vendors'
  // private sequences are where dcmjs stumbles. Anything after Pixel Data (digital signatures,
  // padding, private groups) goes too.
  const public_ = elements.filter((e) => (e.tag >>> 16) % 2 === 0 && e.tag !== PIXEL_DATA);
  // Only where the output's encoding is the input's (explicit little endian) and the VR as written
  // is the one dcmjs would read (not UN, which it may look up), not a group length; copied only
  // when text is plain ASCII (the same bytes in every character set the output may declare) and
  // not a sequence (its items are walked).
  const routeOf = (e: TopLevelElement) => {
    if (route === undefined || syntax !== EXPLICIT_LE || e.vr === 'UN' || (e.tag & 0xffff) === 0) return undefined;
    const how = route(e.tag, e.vr);
    if (how === 'copy' && (e.vr === 'SQ' || !(BINARY_VRS.has(e.vr) || isAscii(dataset, e.valueStart, e.end)))) return undefined;
    return how;
  };
  const passed: TopLevelElement[] = [];
  const stubs: Part10['stubs'] = [];
  const kept: TopLevelElement[] = [];
  for (const e of public_) {
    const how = routeOf(e);
    if (how === 'copy') passed.push(e);
    else if (how === 'stub') stubs.push({ tag: e.tag, vr: e.vr });
    else kept.push(e);
  }
  const keptLength = kept.reduce((n, e) => n + e.end - e.start, 0);
  const pixel = elements.find((e) => e.tag === PIXEL_DATA);
  const pixelData = pixel && (inflated ? { start: pixel.start, end: pixel.end, inflated } : { start: datasetAt + pixel.start, end: datasetAt + pixel.end });

  const header = part10Header(sortMeta(meta), keptLength);
  const { file } = header;
  let at = header.datasetAt;
  let characterSet: string[] = [];
  for (const e of kept) {
    file.set(dataset.subarray(e.start, e.end), at);
    if (e.tag === CHARSET) {
      const valueAt = at + e.valueStart - e.start;
      const length = e.end - e.valueStart;
      characterSet = textOf(file, valueAt, length).split('\\').map((v) => v.trim());
      // dcmjs refuses several character sets and knows some single ones by other names; the engine
      // decodes text itself (charset.ts), so dcmjs is shown a value it accepts without complaint.
      if (length >= 10 && characterSet.join('\\') !== 'ISO_IR 192') file.set(padded('ISO_IR 192', length), valueAt);
    }
    at += e.end - e.start;
  }
  return {
    file: file.buffer, syntax, inputSyntax, pixelData, characterSet, hadPreamble,
    privateRemoved: elements.length - public_.length - (pixel ? 1 : 0),
    passedThrough: { source: dataset, elements: passed.map(({ tag, start, end }) => ({ tag, start, end })) },
    stubs,
  };
}

/**
 * A Part 10 file as dcmjs's DicomDict.write lays it out, its dataset (`datasetLength` bytes from
 * `datasetAt`) still to be written: the preamble, "DICM", the meta group's length, then `meta`
 * (each element's bytes, in tag order).
 */
export function part10Header(meta: readonly Uint8Array[], datasetLength: number): { file: Uint8Array<ArrayBuffer>; datasetAt: number } {
  const metaLength = meta.reduce((n, m) => n + m.length, 0);
  const file = new Uint8Array(132 + 12 + metaLength + datasetLength);
  file.set([0x44, 0x49, 0x43, 0x4d], 128);
  file.set([0x02, 0x00, 0x00, 0x00, 0x55, 0x4c, 0x04, 0x00], 132);
  new DataView(file.buffer).setUint32(140, metaLength, true);
  let at = 144;
  for (const m of meta) { file.set(m, at); at += m.length; }
  return { file, datasetAt: at };
}

interface Meta {
  hadPreamble: boolean;
  /** The meta elements other than its group length and transfer syntax, each tag to end of value. */
  meta: Uint8Array[];
  inputSyntax: string | undefined;
  /** Where the dataset starts in the input. */
  datasetAt: number;
}

function readMeta(input: Uint8Array, prefix: boolean): Meta {
  const hadPreamble = input.length >= 132 && ascii(input, 128, 4) === 'DICM';
  let pos = hadPreamble ? 132 : 0;
  const meta: Uint8Array[] = [];
  let inputSyntax: string | undefined;
  while (pos + 8 <= input.length && u16(input, pos, true) === 0x0002) {
    const element = u16(input, pos + 2, true);
    const vr = ascii(input, pos + 4, 2);
    if (!ALL_VRS.has(vr)) throw unreadable('its file header is damaged');
    const long = LONG_VRS.has(vr);
    const length = long ? u32(input, pos + 8, true) : u16(input, pos + 6, true);
    const end = pos + (long ? 12 : 8) + length;
    if (length === UNDEFINED) throw unreadable('its file header is damaged');
    if (end > input.length) throw prefix ? new NeedsWholeFile() : unreadable('its file header is damaged');
    if (element === 0x0010) inputSyntax = textOf(input, end - length, length);
    else if (element !== 0x0000) meta.push(input.subarray(pos, end));
    pos = end;
  }
  return { hadPreamble, meta, inputSyntax, datasetAt: pos };
}

/**
 * The values of some top-level elements of a whole file (meta group too), read as text without
 * reading the rest: for short ASCII values such as UIDs, codes and the engine's own marks. Null
 * when the dataset is deflated or does not scan; values of elements absent are absent.
 */
export function topLevelText(input: Uint8Array, tags: ReadonlySet<number>): Map<number, string> | null {
  const found = new Map<number, string>();
  try {
    const { meta, inputSyntax, datasetAt } = readMeta(input, false);
    for (const element of meta) {
      const tag = (0x0002 << 16) | u16(element, 2, true);
      const long = LONG_VRS.has(ascii(element, 4, 2));
      if (tags.has(tag)) found.set(tag, textOf(element, long ? 12 : 8, element.length - (long ? 12 : 8)));
    }
    const dataset = input.subarray(datasetAt);
    const syntax = inputSyntax ?? guessSyntax(dataset);
    if (syntax === DEFLATED_LE) return null;
    const little = syntax !== EXPLICIT_BE;
    for (const e of scanTopLevel(dataset, little, syntax !== IMPLICIT_LE, dataset.length)) {
      if (tags.has(e.tag)) found.set(e.tag, textOf(dataset, e.valueStart, e.end - e.valueStart));
    }
  } catch {
    return null;
  }
  return found;
}

interface TopLevelElement { tag: number; vr: string; start: number; valueStart: number; end: number }

/** An element's bytes, tag to end of value, explicit VR little endian. */
export interface Chunk { tag: number; bytes: Uint8Array }

/**
 * The meta elements (but its group length and transfer syntax) and the top-level elements of a
 * Part 10 file dcmjs wrote (explicit little endian, no Pixel Data), each as its bytes.
 */
export function writtenElements(written: Uint8Array): { meta: Chunk[]; dataset: Chunk[] } {
  const { meta, datasetAt } = readMeta(written, false);
  const dataset = written.subarray(datasetAt);
  return {
    meta: meta.map((bytes) => ({ tag: ((0x0002 << 16) | u16(bytes, 2, true)) >>> 0, bytes })),
    dataset: scanTopLevel(dataset, true, true, dataset.length).map((e) => ({ tag: e.tag, bytes: dataset.subarray(e.start, e.end) })),
  };
}

/**
 * The top-level elements up to Pixel Data. `ds` may be the first bytes of a dataset of `total`
 * bytes: Pixel Data of a defined length may then end beyond them; anything else that does asks
 * for the whole file.
 */
function scanTopLevel(ds: Uint8Array, little: boolean, explicit: boolean, total: number): TopLevelElement[] {
  const elements: TopLevelElement[] = [];
  const prefix = ds.length < total;
  let pos = 0;
  try {
    for (;;) {
      if (pos + 8 > ds.length) {
        if (prefix) throw new NeedsWholeFile();
        break;
      }
      const tag = readTag(ds, pos, little);
      if (tag > PIXEL_DATA) break;
      const h = header(ds, pos, little, explicit);
      const valueStart = pos + h.size;
      const end = h.length === UNDEFINED ? skipUndefined(ds, valueStart, little, explicit && h.vr !== 'UN') : valueStart + h.length;
      const within = tag === PIXEL_DATA && h.length !== UNDEFINED ? total : ds.length;
      if (end > within) throw prefix && end <= total ? new NeedsWholeFile() : new RangeError('truncated');
      elements.push({ tag, vr: h.vr, start: pos, valueStart, end });
      if (tag === PIXEL_DATA) break;
      pos = end;
    }
  } catch (error) {
    if (error instanceof NeedsWholeFile) throw error;
    if (prefix) throw new NeedsWholeFile();
    throw unreadable('it ends early or an element length is wrong');
  }
  return elements;
}

function header(ds: Uint8Array, pos: number, little: boolean, explicit: boolean): { vr: string; length: number; size: number } {
  if (!explicit || readTag(ds, pos, little) >>> 16 === 0xfffe) return { vr: '', length: u32(ds, pos + 4, little), size: 8 };
  const vr = ascii(ds, pos + 4, 2);
  if (LONG_VRS.has(vr)) return { vr, length: u32(ds, pos + 8, little), size: 12 };
  if (!ALL_VRS.has(vr)) throw new RangeError('bad VR');
  return { vr, length: u16(ds, pos + 6, little), size: 8 };
}

/** Past the sequence delimiter of an undefined-length value (a sequence, or encapsulated pixel data). */
function skipUndefined(ds: Uint8Array, pos: number, little: boolean, explicit: boolean): number {
  for (;;) {
    const tag = readTag(ds, pos, little);
    const length = u32(ds, pos + 4, little);
    pos += 8;
    if (tag === 0xfffee0dd) return pos;
    if (tag !== 0xfffee000) throw new RangeError('not an item');
    if (length !== UNDEFINED) { pos += length; continue; }
    for (;;) {
      if (readTag(ds, pos, little) === 0xfffee00d) { pos += 8; break; }
      const h = header(ds, pos, little, explicit);
      pos += h.size;
      pos = h.length === UNDEFINED ? skipUndefined(ds, pos, little, explicit && h.vr !== 'UN') : pos + h.length;
    }
    if (pos > ds.length) throw new RangeError('truncated');
  }
}

function guessSyntax(ds: Uint8Array): string {
  return ds.length >= 6 && ALL_VRS.has(ascii(ds, 4, 2)) ? EXPLICIT_LE : IMPLICIT_LE;
}

/** A dataset without a file header: its first element is a low, even group with a plausible length. */
function looksLikeDataset(ds: Uint8Array): boolean {
  if (ds.length < 16) return false;
  const group = u16(ds, 0, true);
  if (group === 0 || group > 0x0010 || group % 2 === 1) return false;
  const explicit = ALL_VRS.has(ascii(ds, 4, 2));
  return explicit || u32(ds, 4, true) < ds.length;
}

function metaElement(element: number, vr: string, value: string): Uint8Array {
  const bytes = padded(value, value.length + (value.length % 2), '\0');
  const out = new Uint8Array(8 + bytes.length);
  const view = new DataView(out.buffer);
  view.setUint16(0, 0x0002, true);
  view.setUint16(2, element, true);
  out.set([vr.charCodeAt(0), vr.charCodeAt(1)], 4);
  view.setUint16(6, bytes.length, true);
  out.set(bytes, 8);
  return out;
}

function sortMeta(elements: Uint8Array[]): Uint8Array[] {
  return elements.toSorted((a, b) => u16(a, 2, true) - u16(b, 2, true));
}

function padded(value: string, length: number, pad = ' '): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (i < value.length ? value : pad).charCodeAt(i < value.length ? i : 0);
  return out;
}

function readTag(b: Uint8Array, pos: number, little: boolean): number {
  return ((u16(b, pos, little) << 16) | u16(b, pos + 2, little)) >>> 0;
}
function u16(b: Uint8Array, pos: number, little: boolean): number {
  if (pos + 2 > b.length) throw new RangeError('truncated');
  return little ? b[pos]! | (b[pos + 1]! << 8) : (b[pos]! << 8) | b[pos + 1]!;
}
function u32(b: Uint8Array, pos: number, little: boolean): number {
  if (pos + 4 > b.length) throw new RangeError('truncated');
  return little
    ? (b[pos]! | (b[pos + 1]! << 8) | (b[pos + 2]! << 16) | (b[pos + 3]! << 24)) >>> 0
    : ((b[pos]! << 24) | (b[pos + 1]! << 16) | (b[pos + 2]! << 8) | b[pos + 3]!) >>> 0;
}
/** A text value as DICOM pads it (trailing spaces or NULs dropped). */
function textOf(b: Uint8Array, pos: number, length: number): string {
  return ascii(b, pos, length).replace(/[\0 ]+$/, '');
}
/** ASCII without ESC: ISO 2022 writes other sets in 7-bit bytes after an escape sequence. */
function isAscii(b: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (b[i]! >= 0x80 || b[i] === 0x1b) return false;
  return true;
}
function ascii(b: Uint8Array, pos: number, length: number): string {
  let s = '';
  for (let i = pos; i < pos + length && i < b.length; i++) s += String.fromCharCode(b[i]!);
  return s;
}
