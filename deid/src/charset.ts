// dcmjs decodes a dataset's text with one TextDecoder, refuses ISO 2022 code extensions, and reads
// the items of sequences as Latin-1 whatever the character set. The engine therefore decodes all
// text itself: while dcmjs reads, every TextDecoder it creates is the dataset's own decoder.
// Output text is always UTF-8 with Specific Character Set ISO_IR 192 (dcmjs writes UTF-8).
import { DeidentificationError } from './errors.js';

interface Decoder { decode(input: ArrayBuffer | ArrayBufferView): string }
type DecoderClass = new (label?: string) => Decoder;

// Typed by hand: the engine is checked against both the DOM's and Node's TextDecoder.
const scope = globalThis as unknown as { TextDecoder: DecoderClass };
const RealTextDecoder = scope.TextDecoder;
const decoders = new Map<string, Decoder>();
function whatwg(label: string): Decoder {
  let d = decoders.get(label);
  if (!d) { d = new RealTextDecoder(label); decoders.set(label, d); }
  return d;
}

/** Defined terms of PS3.3 C.12.1.1.2 for single-byte and multi-byte sets without code extensions. */
const SINGLE: Record<string, string> = {
  '': 'latin1', 'ISO_IR 6': 'latin1', 'ISO_IR 100': 'latin1', 'ISO_IR 101': 'iso-8859-2', 'ISO_IR 109': 'iso-8859-3',
  'ISO_IR 110': 'iso-8859-4', 'ISO_IR 144': 'iso-8859-5', 'ISO_IR 127': 'iso-8859-6', 'ISO_IR 126': 'iso-8859-7',
  'ISO_IR 138': 'iso-8859-8', 'ISO_IR 148': 'iso-8859-9', 'ISO_IR 203': 'iso-8859-15', 'ISO_IR 166': 'windows-874',
  'ISO_IR 13': 'shift_jis', 'ISO_IR 192': 'utf-8', GB18030: 'gb18030', GBK: 'gbk',
};

/** ISO 2022 designations of a G1 set (high bytes) by defined term and by escape sequence. */
type G1 = { label: string; double: boolean };
const G1_BY_TERM: Record<string, G1> = {
  'ISO 2022 IR 6': { label: 'latin1', double: false }, 'ISO 2022 IR 100': { label: 'latin1', double: false },
  'ISO 2022 IR 101': { label: 'iso-8859-2', double: false }, 'ISO 2022 IR 109': { label: 'iso-8859-3', double: false },
  'ISO 2022 IR 110': { label: 'iso-8859-4', double: false }, 'ISO 2022 IR 144': { label: 'iso-8859-5', double: false },
  'ISO 2022 IR 127': { label: 'iso-8859-6', double: false }, 'ISO 2022 IR 126': { label: 'iso-8859-7', double: false },
  'ISO 2022 IR 138': { label: 'iso-8859-8', double: false }, 'ISO 2022 IR 148': { label: 'iso-8859-9', double: false },
  'ISO 2022 IR 203': { label: 'iso-8859-15', double: false }, 'ISO 2022 IR 166': { label: 'windows-874', double: false },
  'ISO 2022 IR 13': { label: 'shift_jis', double: false }, 'ISO 2022 IR 149': { label: 'euc-kr', double: true },
  'ISO 2022 IR 58': { label: 'gbk', double: true },
};
const G1_BY_ESCAPE: Record<string, G1> = {
  '-A': G1_BY_TERM['ISO 2022 IR 100']!, '-B': G1_BY_TERM['ISO 2022 IR 101']!, '-C': G1_BY_TERM['ISO 2022 IR 109']!,
  '-D': G1_BY_TERM['ISO 2022 IR 110']!, '-L': G1_BY_TERM['ISO 2022 IR 144']!, '-G': G1_BY_TERM['ISO 2022 IR 127']!,
  '-F': G1_BY_TERM['ISO 2022 IR 126']!, '-H': G1_BY_TERM['ISO 2022 IR 138']!, '-M': G1_BY_TERM['ISO 2022 IR 148']!,
  '-b': G1_BY_TERM['ISO 2022 IR 203']!, '-T': G1_BY_TERM['ISO 2022 IR 166']!, ')I': G1_BY_TERM['ISO 2022 IR 13']!,
  '$)C': G1_BY_TERM['ISO 2022 IR 149']!, '$)A': G1_BY_TERM['ISO 2022 IR 58']!,
};
type G0 = 'ascii' | 'jisx0208' | 'jisx0212';
const G0_BY_ESCAPE: Record<string, G0> = { '(B': 'ascii', '(J': 'ascii', '$B': 'jisx0208', '$@': 'jisx0208', '$(D': 'jisx0212' };

export function decoderFor(characterSet: readonly string[]): Decoder {
  const terms = characterSet.length ? characterSet : [''];
  if (terms.length === 1 && !terms[0]!.startsWith('ISO 2022')) {
    const label = SINGLE[terms[0]!];
    if (!label) throw unsupported(terms);
    return whatwg(label);
  }
  const first = terms[0] || 'ISO 2022 IR 6';
  for (const term of terms) if (term && !G1_BY_TERM[term] && !['ISO 2022 IR 87', 'ISO 2022 IR 159'].includes(term)) throw unsupported(terms);
  return new Iso2022Decoder(G1_BY_TERM[first] ?? G1_BY_TERM['ISO 2022 IR 6']!);
}

function unsupported(terms: readonly string[]): DeidentificationError {
  return new DeidentificationError('unsupported-character-set',
    `This DICOM file uses the character set "${terms.join('\\')}", which cannot be read here, so it cannot be de-identified safely. Export it again with another character set (e.g. UTF-8).`);
}

/** PS3.5 6.1.2.5: escape sequences switch G0 (7-bit) and G1 (8-bit) sets within a value. */
class Iso2022Decoder implements Decoder {
  constructor(private readonly initialG1: G1) {}

  decode(input: ArrayBuffer | ArrayBufferView): string {
    const b = ArrayBuffer.isView(input) ? new Uint8Array(input.buffer, input.byteOffset, input.byteLength) : new Uint8Array(input);
    let g0: G0 = 'ascii';
    let g1 = this.initialG1;
    let out = '';
    let i = 0;
    while (i < b.length) {
      const c = b[i]!;
      if (c === 0x1b) {
        const seq = [1, 2, 3].map((n) => String.fromCharCode(...b.subarray(i + 1, i + 1 + n))).find((s) => s in G0_BY_ESCAPE || s in G1_BY_ESCAPE);
        if (!seq) { i++; continue; }
        if (seq in G0_BY_ESCAPE) g0 = G0_BY_ESCAPE[seq]!; else g1 = G1_BY_ESCAPE[seq]!;
        i += 1 + seq.length;
        continue;
      }
      let j = i;
      if (c < 0x80) {
        while (j < b.length && b[j]! < 0x80 && b[j] !== 0x1b) j++;
        const run = b.subarray(i, j);
        if (g0 === 'ascii') out += String.fromCharCode(...run);
        else out += whatwg('euc-jp').decode(Uint8Array.from(g0 === 'jisx0212' ? eucJis0212(run) : run.map((x) => x | 0x80)));
      } else {
        while (j < b.length && b[j]! >= 0x80) j++;
        out += whatwg(g1.label).decode(b.subarray(i, j));
      }
      i = j;
    }
    return out;
  }
}

function eucJis0212(run: Uint8Array): number[] {
  const out: number[] = [];
  for (let k = 0; k + 1 < run.length; k += 2) out.push(0x8f, run[k]! | 0x80, run[k + 1]! | 0x80);
  return out;
}

/** Runs `read` with every `new TextDecoder(…)` answering `decoder` (dcmjs reads synchronously). */
export function withDecoder<T>(decoder: Decoder, read: () => T): T {
  function Swapped(): Decoder { return decoder; }
  (Swapped as { prototype: unknown }).prototype = RealTextDecoder.prototype as unknown;
  scope.TextDecoder = Swapped as unknown as DecoderClass;
  try {
    return read();
  } finally {
    scope.TextDecoder = RealTextDecoder;
  }
}
