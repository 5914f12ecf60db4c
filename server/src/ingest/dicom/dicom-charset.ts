// Decodes DICOM text by its Specific Character Set (0008,0005), including ISO 2022 code extensions,
import { TextDecoder } from 'node:util';
// where escape sequences switch character sets in the middle of a value (PS3.5 §6.1).

/** Defined Terms of (0008,0005) without code extensions, as WHATWG encoding labels. */
const SINGLE: Record<string, string> = {
  '': 'windows-1252',
  ISO_IR_6: 'windows-1252',
  ISO_IR_100: 'iso-8859-1',
  ISO_IR_101: 'iso-8859-2',
  ISO_IR_109: 'iso-8859-3',
  ISO_IR_110: 'iso-8859-4',
  ISO_IR_144: 'iso-8859-5',
  ISO_IR_127: 'iso-8859-6',
  ISO_IR_126: 'iso-8859-7',
  ISO_IR_138: 'iso-8859-8',
  ISO_IR_148: 'iso-8859-9',
  ISO_IR_203: 'iso-8859-15',
  ISO_IR_13: 'shift_jis',
  ISO_IR_166: 'windows-874',
  ISO_IR_192: 'utf-8',
  GB18030: 'gb18030',
  GBK: 'gbk',
};

/** Code-extension terms ('ISO 2022 IR 100') name the same sets as their single-byte twins. */
function labelFor(term: string): string {
  const key = term.trim().replace(/^ISO 2022 /, 'ISO_').replace(/ /g, '_');
  return SINGLE[key] ?? 'windows-1252';
}

interface Designation {
  /** The bytes after ESC that select this set. */
  escape: number[];
  decode: (bytes: Uint8Array) => string;
}

const decoders = new Map<string, TextDecoder>();
function decoder(label: string): TextDecoder {
  let d = decoders.get(label);
  if (d === undefined) {
    d = new TextDecoder(label);
    decoders.set(label, d);
  }
  return d;
}

const byLabel = (label: string) => (bytes: Uint8Array) => decoder(label).decode(bytes);
/** JIS X 0208 / 0212 bytes are 7-bit pairs; EUC-JP is the same pairs with the high bit set. */
const jis = (prefix: number[]) => (bytes: Uint8Array) => {
  const euc: number[] = [];
  for (let i = 0; i + 1 < bytes.length; i += 2) euc.push(...prefix, bytes[i]! | 0x80, bytes[i + 1]! | 0x80);
  return decoder('euc-jp').decode(Uint8Array.from(euc));
};
const grLabel = (label: string) => (bytes: Uint8Array) => decoder(label).decode(bytes);

const ESC = 0x1b;
const DESIGNATIONS: Designation[] = [
  { escape: [0x28, 0x42], decode: byLabel('windows-1252') }, // ESC ( B  ASCII
  { escape: [0x28, 0x4a], decode: byLabel('shift_jis') }, // ESC ( J  JIS X 0201 Romaji
  { escape: [0x29, 0x49], decode: byLabel('shift_jis') }, // ESC ) I  JIS X 0201 Katakana
  { escape: [0x24, 0x42], decode: jis([]) }, // ESC $ B  JIS X 0208
  { escape: [0x24, 0x28, 0x44], decode: jis([0x8f]) }, // ESC $ ( D  JIS X 0212
  { escape: [0x24, 0x29, 0x43], decode: grLabel('euc-kr') }, // ESC $ ) C  KS X 1001
  { escape: [0x24, 0x29, 0x41], decode: grLabel('gbk') }, // ESC $ ) A  GB 2312
  { escape: [0x2d, 0x41], decode: byLabel('iso-8859-1') },
  { escape: [0x2d, 0x42], decode: byLabel('iso-8859-2') },
  { escape: [0x2d, 0x43], decode: byLabel('iso-8859-3') },
  { escape: [0x2d, 0x44], decode: byLabel('iso-8859-4') },
  { escape: [0x2d, 0x4c], decode: byLabel('iso-8859-5') },
  { escape: [0x2d, 0x47], decode: byLabel('iso-8859-6') },
  { escape: [0x2d, 0x46], decode: byLabel('iso-8859-7') },
  { escape: [0x2d, 0x48], decode: byLabel('iso-8859-8') },
  { escape: [0x2d, 0x4d], decode: byLabel('iso-8859-9') },
  { escape: [0x2d, 0x54], decode: byLabel('windows-874') },
  { escape: [0x2d, 0x62], decode: byLabel('iso-8859-15') },
];

function startsAt(bytes: Uint8Array, at: number, seq: readonly number[]): boolean {
  return seq.every((b, i) => bytes[at + 1 + i] === b);
}

/** Splits (0008,0005)'s raw value ('\ISO 2022 IR 87') into terms; an empty first term means ASCII. */
export function parseCharacterSets(value: string | undefined): string[] {
  if (value === undefined) return [''];
  return value.split('\\').map((t) => t.trim());
}

export function decodeDicomText(bytes: Uint8Array, charsets: readonly string[]): string {
  const initial = byLabel(labelFor(charsets[0] ?? ''));
  const extended = charsets.length > 1 || (charsets[0] ?? '').startsWith('ISO 2022');
  if (!extended || !bytes.includes(ESC)) return strip(initial(bytes));
  let out = '';
  let current = initial;
  let start = 0;
  for (let i = 0; i < bytes.length; i += 1) {
    if (bytes[i] !== ESC) continue;
    const designation = DESIGNATIONS.find((d) => startsAt(bytes, i, d.escape));
    if (designation === undefined) continue;
    out += current(bytes.subarray(start, i));
    current = designation.decode;
    start = i + 1 + designation.escape.length;
    i = start - 1;
  }
  out += current(bytes.subarray(start));
  return strip(out);
}

/** Values are padded to even length with spaces (or NUL for some writers). */
function strip(text: string): string {
  return text.replace(/[\s\0]+$/u, '').replace(/^\s+/u, '');
}
