// Reads a DICOM file's header (everything before Pixel Data) with dicom-parser, from a bounded
// prefix of the file: pixel data can be gigabytes and is never read.
import { readSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import zlib from 'node:zlib';
import dicomParser, { type ByteArrayParser, type DataSet } from 'dicom-parser';
import type { TDicomFields } from '@portal/contract';
import { decodeDicomText, parseCharacterSets } from './dicom-charset.js';

export type DicomHeader =
  | {
      ok: true;
      fields: TDicomFields;
      dataSet: DataSet;
      charsets: string[];
      isDicomdir: boolean;
      /** Set when only part of the header could be read (a truncated or damaged file), in words. */
      warning: string | null;
    }
  | { ok: false; reason: string };

const PIXEL_DATA = 'x7fe00010';
const FIRST_READ = 64 * 1024;
const IMPLICIT_LE = '1.2.840.10008.1.2';
const EXPLICIT_LE = '1.2.840.10008.1.2.1';
const EXPLICIT_BE = '1.2.840.10008.1.2.2';
const DEFLATED = '1.2.840.10008.1.2.1.99';
export const MEDIA_STORAGE_DIRECTORY = '1.2.840.10008.1.3.10';

type DataSetConstructor = new (parser: ByteArrayParser, byteArray: Uint8Array, elements: DataSet['elements']) => DataSet;
// dicom-parser exports the class at run time but types it as an interface.
const DataSetClass = (dicomParser as unknown as { DataSet: DataSetConstructor }).DataSet;

class NeedMore extends Error {}

const UNREADABLE = 'unreadable DICOM: not one element of its header could be read (the file is damaged, or not DICOM)';

const VR = /^[A-Z]{2}$/;

/**
 * Without a transfer syntax to go by, the first element's bytes show whether VRs are explicit and,
 * for a data set that starts with group 0008 as they do, whether it is big endian.
 */
function guessSyntax(bytes: Uint8Array, at: number): string {
  if (bytes.length < at + 6) return IMPLICIT_LE;
  if (!VR.test(String.fromCharCode(bytes[at + 4]!, bytes[at + 5]!))) return IMPLICIT_LE;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return view.getUint16(at, false) === 0x0008 ? EXPLICIT_BE : EXPLICIT_LE;
}

interface Meta {
  dataSet: DataSet | null;
  end: number;
  transferSyntax: string | null;
}

const transferSyntaxOf = (meta: DataSet): string | null => meta.string('x00020010')?.replace(/\0/g, '').trim() || null;

/**
 * Some writers leave out the preamble and 'DICM' but keep a file meta group (sometimes only its
 * transfer syntax) at the start. Meta elements are always explicit VR little endian.
 */
function readBareMeta(bytes: Uint8Array, complete: boolean): Meta | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 8 || view.getUint16(0, true) !== 0x0002 || !VR.test(String.fromCharCode(bytes[4]!, bytes[5]!))) return null;
  const dataSet = new DataSetClass(dicomParser.littleEndianByteArrayParser, bytes, {});
  const stream = new dicomParser.ByteStream(dicomParser.littleEndianByteArrayParser, bytes, 0);
  try {
    while (stream.position + 8 <= bytes.length && view.getUint16(stream.position, true) === 0x0002) {
      const element = dicomParser.readDicomElementExplicit(stream);
      if (element.dataOffset + element.length > bytes.length) throw new NeedMore();
      dataSet.elements[element.tag] = element;
    }
  } catch (error) {
    if (!complete) throw new NeedMore();
    throw error;
  }
  return { dataSet, end: stream.position, transferSyntax: transferSyntaxOf(dataSet) };
}

function readMeta(bytes: Uint8Array, complete: boolean): Meta {
  const part10 = bytes.length >= 132 && String.fromCharCode(...bytes.subarray(128, 132)) === 'DICM';
  if (!part10) return readBareMeta(bytes, complete) ?? { dataSet: null, end: 0, transferSyntax: null };
  // The group length bounds the meta header: without it dicom-parser reads on into the data set.
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const hasGroupLength = bytes.length >= 144 && view.getUint16(132, true) === 2 && view.getUint16(134, true) === 0;
  const end = hasGroupLength ? 144 + view.getUint32(140, true) : null;
  if (end !== null && end > bytes.length) {
    if (complete) throw new Error('file meta header longer than the file');
    throw new NeedMore();
  }
  const dataSet = dicomParser.readPart10Header(end === null ? bytes : bytes.subarray(0, end));
  const metaEnd = end ?? (dataSet as DataSet & { position: number }).position;
  return { dataSet, end: metaEnd, transferSyntax: transferSyntaxOf(dataSet) };
}

function inflateDataSet(bytes: Uint8Array, at: number, maxBytes: number): Uint8Array {
  // SYNC_FLUSH lets a bounded prefix of the deflate stream inflate without "unexpected end".
  const inflated = zlib.inflateRawSync(bytes.subarray(at), { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: maxBytes });
  const joined = new Uint8Array(at + inflated.length);
  joined.set(bytes.subarray(0, at));
  joined.set(inflated, at);
  return joined;
}

interface Parsed {
  dataSet: DataSet;
  meta: DataSet | null;
  transferSyntax: string | null;
  /** Where reading stopped early in a complete file (truncated or damaged), else null. */
  stoppedAt: number | null;
}

/**
 * What a complete file's header holds up to the point where it cannot be read on (as dcmtk's error
 * recovery does): the meta header and every element that lies wholly inside the file. Answers where
 * reading stopped (null when nothing was cut short), or throws when not even that much is readable.
 */
function keepReadable(dataSet: DataSet, meta: Meta, size: number, failed: boolean): number | null {
  let end = meta.end;
  let cut = failed;
  // for…in rather than Object.entries/keys: a header has hundreds of elements, and the arrays of
  // pairs those made were a twelfth of what a small upload allocated (docs/performance.md, "Single
  // uploads, fewer trips to the thread pool").
  let found = 0;
  const { elements } = dataSet;
  for (const tag in elements) {
    const element = elements[tag]!;
    // Reading stops at Pixel Data's header (encapsulated data keeps its undefined length): never cut.
    if (tag === PIXEL_DATA) {
      found += 1;
      continue;
    }
    if (element.length < 0 || element.dataOffset + element.length > size) {
      delete elements[tag];
      cut = true;
    } else {
      found += 1;
      end = Math.max(end, element.dataOffset + element.length);
    }
  }
  found += Object.keys(meta.dataSet?.elements ?? {}).length;
  if (found === 0) throw new Error('no element');
  return cut ? end : null;
}

function parse(raw: Uint8Array, complete: boolean, maxBytes: number): Parsed {
  const meta = readMeta(raw, complete);
  const syntax = meta.transferSyntax ?? guessSyntax(raw, meta.end);
  const bytes = syntax === DEFLATED ? inflateDataSet(raw, meta.end, maxBytes) : raw;
  const parser = syntax === EXPLICIT_BE ? dicomParser.bigEndianByteArrayParser : dicomParser.littleEndianByteArrayParser;
  const dataSet = new DataSetClass(parser, bytes, {});
  dataSet.warnings = [];
  let failed = false;
  if (meta.end < bytes.length) {
    const stream = new dicomParser.ByteStream(parser, bytes, meta.end);
    try {
      if (syntax === IMPLICIT_LE) dicomParser.parseDicomDataSetImplicit(dataSet, stream, bytes.length, { untilTag: PIXEL_DATA });
      else dicomParser.parseDicomDataSetExplicit(dataSet, stream, bytes.length, { untilTag: PIXEL_DATA });
    } catch {
      if (!complete) throw new NeedMore();
      failed = true;
    }
  }
  // A prefix that happens to end between two elements parses cleanly but may miss later ones.
  if (!complete && dataSet.elements[PIXEL_DATA] === undefined) throw new NeedMore();
  const stoppedAt = complete ? keepReadable(dataSet, meta, bytes.length, failed) : null;
  return { dataSet, meta: meta.dataSet, transferSyntax: meta.transferSyntax, stoppedAt };
}

function text(dataSet: DataSet, tag: string, charsets: readonly string[]): string | null {
  const element = dataSet.elements[tag];
  if (element === undefined || element.length <= 0) return null;
  const bytes = dataSet.byteArray.subarray(element.dataOffset, element.dataOffset + element.length);
  // NUL is padding in DICOM, never text; PostgreSQL refuses it inside a text column.
  const value = decodeDicomText(bytes, charsets).replace(/\0/g, '');
  return value === '' ? null : value;
}

function ascii(dataSet: DataSet | null, tag: string): string | null {
  const value = dataSet?.string(tag)?.replace(/\0/g, '').trim();
  return value === undefined || value === '' ? null : value;
}

function integer(value: number | undefined): number | null {
  return value === undefined || !Number.isSafeInteger(value) ? null : value;
}

/**
 * An IS value: its (first) integer, or the text as written when it is not one ('1A' is not 1, and
 * no guess is made), as dcmtk shows it.
 */
function integerString(dataSet: DataSet, tag: string): number | string | null {
  const written = ascii(dataSet, tag);
  if (written === null) return null;
  const first = written.split('\\')[0]!.trim();
  const value = /^[+-]?\d{1,12}$/.test(first) ? integer(Number(first)) : null;
  return value ?? written;
}

/** An IS value read strictly: its single integer, or null when it is anything else ('1A', '1\\2'). */
function strictInteger(dataSet: DataSet, tag: string): number | null {
  const written = ascii(dataSet, tag);
  return written !== null && /^[+-]?\d{1,12}$/.test(written) ? integer(Number(written)) : null;
}

/** Text of any tag, decoded by the file's character set (for tags beyond the indexed fields). */
export function dicomText(header: Extract<DicomHeader, { ok: true }>, tag: string): string | null {
  return text(header.dataSet, tag, header.charsets);
}

function fieldsOf(parsed: Parsed): { fields: TDicomFields; charsets: string[] } {
  const { dataSet, meta } = parsed;
  const charsets = parseCharacterSets(dataSet.string('x00080005') === undefined ? undefined : rawString(dataSet, 'x00080005'));
  return {
    charsets,
    fields: {
      sop_instance_uid: ascii(dataSet, 'x00080018') ?? ascii(meta, 'x00020003'),
      sop_class_uid: ascii(dataSet, 'x00080016') ?? ascii(meta, 'x00020002'),
      study_instance_uid: ascii(dataSet, 'x0020000d'),
      series_instance_uid: ascii(dataSet, 'x0020000e'),
      modality: ascii(dataSet, 'x00080060'),
      study_date: ascii(dataSet, 'x00080020'),
      study_description: text(dataSet, 'x00081030', charsets),
      series_description: text(dataSet, 'x0008103e', charsets),
      transfer_syntax_uid: parsed.transferSyntax,
      rows: integer(dataSet.uint16('x00280010')),
      columns: integer(dataSet.uint16('x00280011')),
      number_of_frames: integerString(dataSet, 'x00280008'),
      // PN and LO: decoded by the character set like the descriptions; padding is not part of a name.
      patient_name: text(dataSet, 'x00100010', charsets),
      patient_id: text(dataSet, 'x00100020', charsets),
      // What a DICOMweb search answers: SH and PN text by the character set, DA/TM/CS as ASCII.
      accession_number: text(dataSet, 'x00080050', charsets),
      study_time: ascii(dataSet, 'x00080030'),
      study_id: text(dataSet, 'x00200010', charsets),
      referring_physician_name: text(dataSet, 'x00080090', charsets),
      patient_birth_date: ascii(dataSet, 'x00100030'),
      patient_sex: ascii(dataSet, 'x00100040'),
      series_number: strictInteger(dataSet, 'x00200011'),
      instance_number: strictInteger(dataSet, 'x00200013'),
    },
  };
}

/** Keeps a leading empty value ('\ISO 2022 IR 87'), which dataSet.string() would trim away. */
function rawString(dataSet: DataSet, tag: string): string {
  const element = dataSet.elements[tag]!;
  return Buffer.from(dataSet.byteArray.subarray(element.dataOffset, element.dataOffset + element.length)).toString('latin1');
}

/**
 * Parses ever longer prefixes of a file until its header is complete: `want` says how many bytes
 * to offer next; `offer` answers the header, or null when it needs the longer prefix now in `want`.
 */
class PrefixParser {
  want: number;
  constructor(
    private readonly size: number,
    private readonly maxHeaderBytes: number,
  ) {
    this.want = Math.min(size, FIRST_READ, maxHeaderBytes);
  }

  offer(bytes: Uint8Array): DicomHeader | null {
    const complete = bytes.length >= this.size;
    try {
      const parsed = parse(bytes, complete, this.maxHeaderBytes);
      const { fields, charsets } = fieldsOf(parsed);
      const isDicomdir = fields.sop_class_uid === MEDIA_STORAGE_DIRECTORY;
      const warning =
        parsed.stoppedAt === null
          ? null
          : `truncated or damaged DICOM header: only its first ${parsed.stoppedAt} bytes could be read, and the fields found there were kept`;
      return { ok: true, fields, dataSet: parsed.dataSet, charsets, isDicomdir, warning };
    } catch (error) {
      const cap = Math.min(this.size, this.maxHeaderBytes);
      if (error instanceof NeedMore && this.want < cap) {
        this.want = Math.min(cap, this.want * 4);
        return null;
      }
      if (error instanceof NeedMore) return { ok: false, reason: `DICOM header not found in the first ${this.maxHeaderBytes} bytes` };
      // The parser's own message names its internals; what the person needs is what happened.
      return { ok: false, reason: UNREADABLE };
    }
  }
}

export async function readDicomHeader(file: string, maxHeaderBytes: number): Promise<DicomHeader> {
  const handle = await open(file, 'r');
  try {
    return await readDicomHeaderAt(handle, 0, (await handle.stat()).size, maxHeaderBytes);
  } finally {
    await handle.close();
  }
}

/**
 * The header of a DICOM file stored `size` bytes from `offset` of an open file (a member of a
 * delivery's bundle). `first`: its first bytes, when the caller read them already.
 */
export async function readDicomHeaderAt(handle: FileHandle, offset: number, size: number, maxHeaderBytes: number, first?: Uint8Array): Promise<DicomHeader> {
  return readDicomHeaderBy(
    async (want) => {
      if (first !== undefined && first.length >= want) return first.subarray(0, want);
      const buffer = Buffer.allocUnsafe(want);
      const { bytesRead } = await handle.read(buffer, 0, want, offset);
      return buffer.subarray(0, bytesRead);
    },
    size,
    maxHeaderBytes,
  );
}

/** The same over any reader of a file's first `want` bytes (a stored object read by range: DICOMweb's metadata and frames). */
export async function readDicomHeaderBy(read: (want: number) => Promise<Uint8Array>, size: number, maxHeaderBytes: number): Promise<DicomHeader> {
  const parser = new PrefixParser(size, maxHeaderBytes);
  for (;;) {
    const header = parser.offer(await read(parser.want));
    if (header !== null) return header;
  }
}

/**
 * The same, for the extraction worker, which reads each file's header the moment it is finished,
 * from inside 7-Zip's synchronous run. `head` holds the first bytes already read; the file's
 * bytes start at `base` in `fd` (a zip member read in place).
 */
export function readDicomHeaderSync(fd: number, size: number, maxHeaderBytes: number, head: Uint8Array, base = 0): DicomHeader {
  const parser = new PrefixParser(size, maxHeaderBytes);
  for (;;) {
    let bytes = head.subarray(0, parser.want);
    if (bytes.length < parser.want) {
      const buffer = Buffer.alloc(parser.want);
      bytes = buffer.subarray(0, readSync(fd, buffer, 0, parser.want, base));
    }
    const header = parser.offer(bytes);
    if (header !== null) return header;
  }
}
