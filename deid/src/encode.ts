// Top-level elements written by the engine itself when their values are plain ASCII text (UIDs,
// codes, dates, the pseudonyms, emptied values): the bytes dcmjs's writer gives them, without its
// stream, buffer and encoder per element, which made the writer ~45 % of the engine's time for a
// CT slice (its ~40 written elements). Anything else (sequences, numbers, other character sets, a
// value dcmjs would refuse as too long) is left to dcmjs. test/encode.test.ts holds each VR and
// value shape against dcmjs's own writing.
import type { Element } from 'dcmjs';

const LONG_VRS = new Set(['OB', 'OD', 'OF', 'OL', 'OV', 'OW', 'SQ', 'UC', 'UN', 'UR', 'UT', 'SV', 'UV']);

/**
 * Text VRs and the longest value dcmjs writes without refusing the file (PS3.5 Table 6.2-1);
 * LO, LT, SH, ST, UC, UR and UT it writes whatever their length. A PN's limit is per component.
 */
const TEXT_LIMITS = new Map<string, number>([
  ['AE', 16], ['AS', 4], ['CS', 16], ['DA', 8], ['DS', 16], ['DT', 26], ['IS', 12], ['TM', 16], ['UI', 64], ['PN', 64],
  ['LO', Infinity], ['LT', Infinity], ['SH', Infinity], ['ST', Infinity], ['UC', Infinity], ['UR', Infinity], ['UT', Infinity],
]);

/** The element's bytes (tag to end of value, explicit VR little endian), or undefined: dcmjs writes it. */
export function encodeElement(tag: number, element: Element): Uint8Array | undefined {
  const { vr } = element;
  const value = vr === 'OB' ? octets(element) : textBytes(element);
  if (!value) return undefined;
  const long = LONG_VRS.has(vr);
  const padded = value.length + (value.length % 2);
  if (!long && padded > 0xffff) return undefined;
  const out = new Uint8Array((long ? 12 : 8) + padded);
  const view = new DataView(out.buffer);
  view.setUint16(0, tag >>> 16, true);
  view.setUint16(2, tag & 0xffff, true);
  out[4] = vr.charCodeAt(0);
  out[5] = vr.charCodeAt(1);
  if (long) view.setUint32(8, padded, true);
  else view.setUint16(6, padded, true);
  const at = long ? 12 : 8;
  out.set(value, at);
  // UI and OB are padded with NUL, text with a space (PS3.5 6.2).
  if (padded > value.length) out[at + value.length] = vr === 'UI' || vr === 'OB' ? 0 : 0x20;
  return out;
}

/** The values dcmjs writes: those read, while the walk left the element untouched, else the new ones. */
function valuesOf(element: Element): unknown[] | undefined {
  const raw = element._rawValue;
  if (raw !== undefined) return Array.isArray(raw) ? (raw as unknown[]) : [raw];
  return element.Value;
}

function textBytes(element: Element): Uint8Array | undefined {
  const limit = TEXT_LIMITS.get(element.vr);
  if (limit === undefined) return undefined;
  const values = valuesOf(element);
  if (values === undefined) return undefined;
  let text: string;
  if (element.vr === 'PN') {
    const names = personNames(values);
    if (names === undefined || names.some((name) => name.split('=').some((component) => component.length > limit))) return undefined;
    text = names.join('\\');
  } else {
    if (!values.every((v): v is string => typeof v === 'string' && v.length <= limit)) return undefined;
    text = values.join('\\');
  }
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) return undefined;
    bytes[i] = code;
  }
  return bytes;
}

/** A PN's values as dcmjs writes them: empty ones left out, an object as its groups joined by '='. */
function personNames(values: unknown[]): string[] | undefined {
  const names: string[] = [];
  for (const v of values) {
    if (!v) continue;
    if (typeof v === 'string' || v instanceof String) { names.push(String(v)); continue; }
    if (typeof v !== 'object') return undefined;
    const { Alphabetic = '', Ideographic = '', Phonetic = '' } = v as Record<string, unknown>;
    if (typeof Alphabetic !== 'string' || typeof Ideographic !== 'string' || typeof Phonetic !== 'string') return undefined;
    names.push(`${Alphabetic}=${Ideographic}=${Phonetic}`.replace(/=*$/, ''));
  }
  return names;
}

/** An OB value held as one buffer (the file meta's version), as dcmjs reads it. */
function octets(element: Element): Uint8Array | undefined {
  if (element._rawValue !== undefined) return undefined;
  const values = element.Value ?? [];
  if (values.length === 0) return new Uint8Array(0);
  const [only] = values;
  if (values.length !== 1 || !(only instanceof ArrayBuffer)) return undefined;
  return new Uint8Array(only);
}
