import type { Dict } from 'dcmjs';
import { actionTable, type ActionTable } from './actions.js';
import { DeidentificationError } from './errors.js';
import { dateShiftDays, pseudonymOf, replacementUid } from './keyed.js';
import { carriesOurMarks, checkValue, EDITION, methodCodes, methodValues, text } from './method.js';
import { normaliseOptions, type Option, type Policy } from './options.js';
import { writeHeader, writtenByDcmjs } from './output.js';
import { topLevelText, type Chunk } from './part10.js';
import { readDicom } from './read.js';
import { reviewReason } from './review.js';
import { walk, type Counts, type WalkContext } from './walk.js';

const DICOMDIR_CLASS = '1.2.840.10008.1.3.10';
/** Identifies this engine as the writer of the file meta it creates (PS3.10 7.1). */
const IMPLEMENTATION_CLASS_UID = '2.25.311659752041815012185777153596428964699';

export interface DeidReport {
  profile: 'basic';
  options: Option[];
  edition: string;
  /** The input already carried this engine's marks for this policy and key: returned unchanged. */
  alreadyDeidentified: boolean;
  patientPseudonym: string;
  sopInstanceUid: string;
  counts: Counts;
  needsReview: boolean;
  reviewReason?: string;
  characterSetChanged?: { from: string; to: string };
  transferSyntaxChanged?: { from: string; to: string };
  /** The input had no preamble or no file meta header; the output has both. */
  fileMetaAdded: boolean;
}

export interface DeidResult { bytes: Uint8Array; report: DeidReport }

/**
 * The output as parts: `head`, made here, then the input's bytes from `tail.start` to `tail.end`
 * (Pixel Data, kept byte for byte), never copied: a browser sends them from the picked file.
 */
export interface DeidParts { head: Uint8Array; tail: { start: number; end: number } | null; report: DeidReport }

const tables = new Map<string, ActionTable>();
const methodChunks = new Map<string, Chunk>();

/**
 * De-identifies one DICOM instance by PS3.15 Annex E. Deterministic: the same bytes, policy and key
 * give the same output bytes. Throws DeidentificationError (with a message for the sender) for a
 * file that must not be sent: not DICOM, unreadable, or a DICOMDIR (always left out).
 */
export function deidentify(input: Uint8Array, policy: Policy, key: Uint8Array): DeidResult {
  const { head, tail, report } = deidentifyParts(input, policy, key);
  if (report.alreadyDeidentified) return { bytes: input, report };
  return { bytes: tail ? concat(head, input.subarray(tail.start, tail.end)) : head, report };
}

/**
 * `deidentify` without copying Pixel Data: the same output, as `head` followed by the input's
 * bytes `tail`. `input` may be the first bytes of a file of `totalSize` bytes: enough when they
 * hold the whole header (a 64 KiB prefix does for a CT slice); if not, NeedsWholeFile is thrown
 * and the caller gives the whole file.
 */
export function deidentifyParts(input: Uint8Array, policy: Policy, key: Uint8Array, totalSize = input.length): DeidParts {
  const options = checkedPolicy(policy, key);
  const table = tableFor(options);
  const { dicom, part10 } = readDicom(input, totalSize, (tag, vr) => routeOf(table, tag, vr));
  const { dict, meta } = dicom;
  if (text(meta, '00020002') === DICOMDIR_CLASS || dict['00041220']) {
    throw new DeidentificationError('dicomdir',
      'This is a DICOMDIR, the index of a disc: it names the patient, so it is left out. The images it lists are sent on their own.');
  }
  const sopClassUid = text(dict, '00080016') || text(meta, '00020002');
  const base = baseReport(dict, sopClassUid, options);
  if (carriesOurMarks(dict, options, key)) return { head: new Uint8Array(0), tail: { start: 0, end: totalSize }, report: keptReport(dict, base) };

  // Without a PatientID the patient is told apart by name and birth date; a backslash cannot occur
  // in an ID (LO), so such a surrogate never equals a real ID.
  const patientId = text(dict, '00100020');
  const patientKey = patientId || `\\${text(dict, '00100010')}\\${text(dict, '00100030')}\\${patientId ? '' : text(dict, '0020000D')}`;
  const patientPseudonym = pseudonymOf(patientKey, key);
  const uids = new Map<string, string>();
  const ctx: WalkContext = {
    table,
    counts: zeroCounts(),
    uid: (original) => {
      const trimmed = original.trim();
      let mapped = uids.get(trimmed);
      if (!mapped) { mapped = replacementUid(trimmed, key); uids.set(trimmed, mapped); }
      return mapped;
    },
    pseudonym: (id) => (id ? pseudonymOf(id, key) : patientPseudonym),
    shiftDays: dateShiftDays(patientKey, key),
    nonAscii: false,
  };
  ctx.counts.privateRemoved += part10.privateRemoved;
  // The walk acts on a stub as on the element read: its action never looks at the value.
  for (const { tag, vr } of part10.stubs) dict[hexTag(tag)] = { vr, Value: [] };
  walk(dict, ctx);
  // Patient ID and Name are Type 2: an instance without them gets them, so that every instance of a
  // project names its patient by the pseudonym.
  dict['00100010'] ??= { vr: 'PN', Value: [{ Alphabetic: patientPseudonym }] };
  dict['00100020'] ??= { vr: 'LO', Value: [patientPseudonym] };

  const hadCharset = part10.characterSet.length > 0;
  let characterSetChanged: DeidReport['characterSetChanged'];
  if (hadCharset || ctx.nonAscii) {
    dict['00080005'] = { vr: 'CS', Value: ['ISO_IR 192'] };
    const from = hadCharset ? part10.characterSet.join('\\') : '(default repertoire)';
    if (from !== 'ISO_IR 192') characterSetChanged = { from, to: 'ISO_IR 192' };
  }
  dict['00120062'] = { vr: 'CS', Value: ['YES'] };
  dict['00120064'] = { vr: 'SQ', Value: methodCodes(options) };
  const premade = new Map([['00120064', methodCodesChunk(options)]]);
  dict['00280303'] = { vr: 'CS', Value: [options.includes('retainLongitudinalModifiedDates') ? 'MODIFIED' : 'REMOVED'] };
  dict['00120063'] = { vr: 'LO', Value: [...methodValues(options), checkValue(key, options, dict)] };
  rewriteMeta(meta, dict, sopClassUid, options.includes('retainUIDs') ? (u) => u : (u) => ctx.uid(u));

  const header = writeHeader(meta, dict, part10.passedThrough, premade);
  const pixel = part10.pixelData;
  // A deflated input's Pixel Data is in the inflated copy, not in the input: it goes into the head.
  const inHead = pixel?.inflated ? concat(header, pixel.inflated.subarray(pixel.start, pixel.end)) : header;
  return {
    head: inHead,
    tail: pixel && !pixel.inflated ? { start: pixel.start, end: pixel.end } : null,
    report: {
      ...base,
      alreadyDeidentified: false,
      patientPseudonym,
      sopInstanceUid: text(dict, '00080018'),
      counts: ctx.counts,
      ...(characterSetChanged && { characterSetChanged }),
      ...(part10.inputSyntax !== undefined && part10.inputSyntax !== part10.syntax && { transferSyntaxChanged: { from: part10.inputSyntax, to: part10.syntax } }),
      fileMetaAdded: !part10.hadPreamble || part10.inputSyntax === undefined,
    },
  };
}

const MARK_TAGS = new Set([0x00020002, 0x00041220, 0x00080016, 0x00080018, 0x00080060, 0x00100020, 0x00120062, 0x00120063, 0x0020000d, 0x00280301]);

/** Top-level elements the engine reads or writes itself besides those the table acts on. */
const ENGINE_TAGS = new Set([...MARK_TAGS, 0x00080005, 0x00100010, 0x00100030, 0x00120064, 0x00280303]);

/**
 * A top-level element the walk would keep unchanged is copied byte for byte rather than read and
 * written again by dcmjs, whose writer allocates a stream, a buffer and a TextEncoder per element:
 * that was ~60 % of the engine's time for a CT slice, most of whose ~100 elements are kept. One the
 * walk removes, empties or replaces by a dummy (not a UID: its replacement comes from its value)
 * is not read either: dcmjs's reader was ~40 % of what remained, sequences the dearest.
 */
function routeOf(table: ActionTable, tag: number, vr: string): 'copy' | 'stub' | undefined {
  if (ENGINE_TAGS.has(tag)) return undefined;
  const resolved = table.lookup(hexTag(tag));
  if (resolved === undefined || resolved.act === 'K') return 'copy';
  if (resolved.act === 'X' || resolved.act === 'Z' || (resolved.act === 'D' && vr !== 'UI')) return 'stub';
  return undefined;
}

function hexTag(tag: number): string {
  return tag.toString(16).toUpperCase().padStart(8, '0');
}

/**
 * The report `deidentify` gives an instance this engine already de-identified for this policy and
 * key, read from a few top-level values without parsing the dataset (the server checking what a
 * browser sent: dcmjs's parse was ~0.5–1 ms of a CT slice); null when not recognised so, and then
 * `deidentify` decides. Its marks are short ASCII values (UIDs, codes, the keyed check).
 */
export function recogniseOwnOutput(input: Uint8Array, policy: Policy, key: Uint8Array): DeidReport | null {
  const options = checkedPolicy(policy, key);
  const values = topLevelText(input, MARK_TAGS);
  if (!values || values.get(0x00020002) === DICOMDIR_CLASS || values.has(0x00041220)) return null;
  const dict: Dict = {};
  for (const [tag, value] of values) dict[hexTag(tag)] = { vr: 'LO', Value: value.split('\\') };
  if (!carriesOurMarks(dict, options, key)) return null;
  return keptReport(dict, baseReport(dict, text(dict, '00080016') || text(dict, '00020002'), options));
}

type BaseReport = Pick<DeidReport, 'profile' | 'options' | 'edition' | 'needsReview' | 'reviewReason'>;

function baseReport(dict: Dict, sopClassUid: string, options: Option[]): BaseReport {
  const reason = reviewReason(dict, sopClassUid);
  return { profile: 'basic', options, edition: EDITION, needsReview: reason !== undefined, ...(reason && { reviewReason: reason }) };
}

function keptReport(dict: Dict, base: BaseReport): DeidReport {
  return { ...base, alreadyDeidentified: true, patientPseudonym: text(dict, '00100020'), sopInstanceUid: text(dict, '00080018'), counts: zeroCounts(), fileMetaAdded: false };
}

/** Whether these bytes are this engine's output for this policy and key (kept as they are). */
export function isDeidentifiedBy(input: Uint8Array, policy: Policy, key: Uint8Array): boolean {
  const options = checkedPolicy(policy, key);
  if (recogniseOwnOutput(input, policy, key)) return true;
  try {
    return carriesOurMarks(readDicom(input).dicom.dict, options, key);
  } catch (error) {
    if (error instanceof DeidentificationError) return false;
    throw error;
  }
}

function checkedPolicy(policy: Policy, key: Uint8Array): Option[] {
  if (policy.profile !== 'basic') throw new TypeError(`unknown de-identification profile: ${String(policy.profile)}`);
  if (!(key instanceof Uint8Array) || key.length < 16) throw new TypeError('the project key must be at least 16 bytes');
  return normaliseOptions(policy.options);
}

function tableFor(options: Option[]): ActionTable {
  const id = options.join(',');
  let table = tables.get(id);
  if (!table) { table = actionTable(options); tables.set(id, table); }
  return table;
}

/** DeidentificationMethodCodeSequence for a policy as dcmjs writes it: the same bytes in every file. */
function methodCodesChunk(options: Option[]): Chunk {
  const id = options.join(',');
  let chunk = methodChunks.get(id);
  if (!chunk) {
    const [made] = writtenByDcmjs({}, { '00120064': { vr: 'SQ', Value: methodCodes(options) } }).dataset;
    if (!made) throw new Error('dcmjs wrote no DeidentificationMethodCodeSequence');
    chunk = made;
    methodChunks.set(id, chunk);
  }
  return chunk;
}

// The meta header follows the dataset: its instance UID is the new SOP Instance UID, and the AE
// titles and private information of the sending system go with the rest of its identity.
function rewriteMeta(meta: Dict, dict: Dict, sopClassUid: string, uid: (original: string) => string): void {
  for (const tag of ['00020000', '00020016', '00020017', '00020018', '00020100', '00020102']) delete meta[tag];
  meta['00020001'] ??= { vr: 'OB', Value: [new Uint8Array([0, 1]).buffer] };
  if (sopClassUid) meta['00020002'] = { vr: 'UI', Value: [sopClassUid] };
  const sopInstanceUid = text(dict, '00080018');
  const metaInstanceUid = sopInstanceUid || (text(meta, '00020003') && uid(text(meta, '00020003')));
  if (metaInstanceUid) meta['00020003'] = { vr: 'UI', Value: [metaInstanceUid] };
  if (!meta['00020012']) {
    meta['00020012'] = { vr: 'UI', Value: [IMPLEMENTATION_CLASS_UID] };
    meta['00020013'] = { vr: 'SH', Value: ['PORTAL_DEID_1'] };
  }
}

function zeroCounts(): Counts {
  return { removed: 0, replaced: 0, shifted: 0, cleaned: 0, privateRemoved: 0, uidsReplaced: 0 };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
