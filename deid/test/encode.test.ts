// The engine's own writing of plain-text elements (src/encode.ts) against dcmjs's writing of the
// same element: the same bytes, or the element is left to dcmjs.
import type { Element } from 'dcmjs';
import { describe, expect, it } from 'vitest';
import { encodeElement } from '../src/encode.js';
import { writtenByDcmjs } from '../src/output.js';

/** The element as dcmjs writes it, in the file meta group or the dataset. */
function byDcmjs(tag: number, element: Element): Uint8Array {
  const hex = tag.toString(16).toUpperCase().padStart(8, '0');
  const inMeta = tag >>> 16 === 0x0002;
  const alone = { [hex]: structuredClone(element) };
  const written = inMeta ? writtenByDcmjs(alone, {}) : writtenByDcmjs({}, alone);
  const found = (inMeta ? written.meta : written.dataset).find((c) => c.tag === tag);
  if (!found) throw new Error(`dcmjs wrote no element ${hex}`);
  return found.bytes;
}

const octets = (...bytes: number[]) => new Uint8Array(bytes).buffer;

/** Tag, element: as the walk or the engine leaves them, or as dcmjs read them (`_rawValue`). */
const WRITTEN: [string, number, Element][] = [
  ['a UID, odd length (NUL padding)', 0x00080018, { vr: 'UI', Value: ['1.2.3'] }],
  ['two UIDs', 0x00081150, { vr: 'UI', Value: ['1.2', '1.2.345'] }],
  ['codes', 0x00080008, { vr: 'CS', Value: ['ORIGINAL', 'PRIMARY', 'AXIAL'] }],
  ['an emptied value', 0x00100040, { vr: 'CS', Value: [] }],
  ['an empty string', 0x00080050, { vr: 'SH', Value: [''] }],
  ['a dummy date', 0x00080020, { vr: 'DA', Value: ['19000101'] }],
  ['a dummy time', 0x00080030, { vr: 'TM', Value: ['000000'] }],
  ['a date-time', 0x0008002a, { vr: 'DT', Value: ['19000101000000'] }],
  ['an age', 0x00101010, { vr: 'AS', Value: ['000D'] }],
  ['a decimal string as text', 0x00180050, { vr: 'DS', Value: ['5.000000'] }],
  ['an integer string as text', 0x00200013, { vr: 'IS', Value: ['12'] }],
  ['a long string, odd length (space padding)', 0x00080080, { vr: 'LO', Value: ['DEIDENTIFIED'] }],
  ['a short string', 0x00081010, { vr: 'SH', Value: ['CT1'] }],
  ['an AE title', 0x00080054, { vr: 'AE', Value: ['STATION'] }],
  ['a long text', 0x00204000, { vr: 'LT', Value: ['x'.repeat(1001)] }],
  ['a short text', 0x00324000, { vr: 'ST', Value: ['said'] }],
  ['unlimited text (a 32-bit length)', 0x00400280, { vr: 'UT', Value: ['abc'] }],
  ['unlimited characters, two values', 0x00081030, { vr: 'UC', Value: ['a', 'bc'] }],
  ['a URI', 0x00081190, { vr: 'UR', Value: ['https://example.org/x'] }],
  ['a pseudonym as a name', 0x00100010, { vr: 'PN', Value: [{ Alphabetic: 'P-7CBC0E7A13AB' }] }],
  ['a name with an ideographic group', 0x00100010, { vr: 'PN', Value: [{ Alphabetic: 'Doe^J', Ideographic: 'D' }] }],
  ['a name with empty values among others', 0x00081070, { vr: 'PN', Value: ['', { Alphabetic: 'X' }, 'Y^Z'] }],
  ['an emptied name', 0x00080090, { vr: 'PN', Value: [] }],
  ['a name as read', 0x00081070, { vr: 'PN', Value: [{ Alphabetic: 'Doe^John' }], _rawValue: ['Doe^John'] }],
  ['a number as read, written as it was', 0x00180050, { vr: 'DS', Value: [5], _rawValue: ['5.000000'] }],
  ['a text as read, not split', 0x00204000, { vr: 'LT', Value: ['a\\b'], _rawValue: 'a\\b' }],
  ['the file meta version', 0x00020001, { vr: 'OB', Value: [octets(0, 1)] }],
  ['bytes of odd length (NUL padding)', 0x00020001, { vr: 'OB', Value: [octets(1, 2, 3)] }],
  ['emptied bytes (a 32-bit length)', 0x00420011, { vr: 'OB', Value: [] }],
];

/** Left to dcmjs: not plain ASCII text, or a value dcmjs refuses. */
const LEFT: [string, number, Element][] = [
  ['text outside ASCII', 0x00080080, { vr: 'LO', Value: ['Müller'] }],
  ['a name outside ASCII', 0x00100010, { vr: 'PN', Value: [{ Alphabetic: 'Müller' }] }],
  ['a number (a dummy)', 0x00180050, { vr: 'DS', Value: [0] }],
  ['a binary value', 0x00280010, { vr: 'US', Value: [512] }],
  ['a sequence', 0x00081110, { vr: 'SQ', Value: [{}] }],
  ['an element without a Value (dcmjs cannot write it either)', 0x00080050, { vr: 'SH' }],
  ['an unknown VR', 0x00091001, { vr: 'UN', Value: [octets(1, 2)] }],
  ['a date longer than a date', 0x00080020, { vr: 'DA', Value: ['190001011'] }],
  ['a name component over 64 characters', 0x00100010, { vr: 'PN', Value: [{ Alphabetic: 'A'.repeat(65) }] }],
];

describe('the engine writes plain-text elements as dcmjs does', () => {
  for (const [what, tag, element] of WRITTEN) {
    it(what, () => {
      const ours = encodeElement(tag, element);
      expect(ours, 'written by the engine').toBeDefined();
      expect(Buffer.from(ours!).toString('hex')).toBe(Buffer.from(byDcmjs(tag, element)).toString('hex'));
    });
  }

  for (const [what, tag, element] of LEFT) {
    it(`leaves ${what} to dcmjs`, () => expect(encodeElement(tag, element)).toBeUndefined());
  }

  it('leaves to dcmjs the values it refuses, so that such a file is refused as before', () => {
    expect(() => byDcmjs(0x00080020, { vr: 'DA', Value: ['190001011'] })).toThrow();
    expect(() => byDcmjs(0x00100010, { vr: 'PN', Value: [{ Alphabetic: 'A'.repeat(65) }] })).toThrow();
  });
});
