// What a file really is, from its first bytes, and what its name promises.

export type ContentKind =
  | 'zip'
  | 'rar4'
  | 'rar5'
  | '7z'
  | 'tar'
  | 'gzip'
  | 'bzip2'
  | 'xz'
  | 'lzma'
  | 'dicom'
  | 'unknown';

export type ArchiveKind = Exclude<ContentKind, 'dicom' | 'unknown'>;

/** Formats that hold exactly one compressed stream: extracting them yields one file, named by us. */
export const SINGLE_STREAM_KINDS: ReadonlySet<ContentKind> = new Set(['gzip', 'bzip2', 'xz', 'lzma']);

/** Enough bytes to decide every kind: tar needs its whole 512-byte header, DICOM 132. */
export const DETECT_BYTES = 512;

export function isArchiveKind(kind: ContentKind): kind is ArchiveKind {
  return kind !== 'dicom' && kind !== 'unknown';
}

function startsWith(head: Uint8Array, magic: readonly number[], at = 0): boolean {
  if (head.length < at + magic.length) return false;
  return magic.every((byte, i) => head[at + i] === byte);
}

const ascii = (text: string): number[] => [...text].map((c) => c.charCodeAt(0));

export function detectKind(head: Uint8Array): ContentKind {
  if (startsWith(head, ascii('DICM'), 128)) return 'dicom';
  if (startsWith(head, [0x50, 0x4b]) && (startsWith(head, [3, 4], 2) || startsWith(head, [5, 6], 2) || startsWith(head, [7, 8], 2)))
    return 'zip';
  if (startsWith(head, [...ascii('Rar!'), 0x1a, 0x07, 0x01, 0x00])) return 'rar5';
  if (startsWith(head, [...ascii('Rar!'), 0x1a, 0x07, 0x00])) return 'rar4';
  if (startsWith(head, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])) return '7z';
  if (startsWith(head, [0x1f, 0x8b, 0x08])) return 'gzip';
  if (startsWith(head, [0xfd, ...ascii('7zXZ'), 0x00])) return 'xz';
  if (isBzip2(head)) return 'bzip2';
  if (startsWith(head, ascii('ustar'), 257) || isOldTar(head)) return 'tar';
  if (isDicomWithoutPreamble(head)) return 'dicom';
  if (isLzmaAlone(head)) return 'lzma';
  return 'unknown';
}

function isBzip2(head: Uint8Array): boolean {
  if (!startsWith(head, ascii('BZh')) || head.length < 10) return false;
  const level = head[3]!;
  if (level < 0x31 || level > 0x39) return false;
  // A block (π) or the end-of-stream marker (√π) must follow, which text starting "BZh1" lacks.
  return startsWith(head, [0x31, 0x41, 0x59, 0x26, 0x53, 0x59], 4) || startsWith(head, [0x17, 0x72, 0x45, 0x38, 0x50, 0x90], 4);
}

/** Pre-POSIX tar has no magic; its header checksum is the only reliable sign. */
function isOldTar(head: Uint8Array): boolean {
  if (head.length < 512 || head[0] === 0) return false;
  const field = Buffer.from(head.subarray(148, 156)).toString('latin1').replace(/[\0 ]+$/, '').trim();
  if (!/^[0-7]{1,7}$/.test(field)) return false;
  let sum = 0;
  for (let i = 0; i < 512; i += 1) sum += i >= 148 && i < 156 ? 0x20 : head[i]!;
  return sum === parseInt(field, 8);
}

const VRS = new Set(
  'AE AS AT CS DA DS DT FD FL IS LO LT OB OD OF OL OV OW PN SH SL SQ SS ST SV TM UC UI UL UN UR US UT UV'.split(' '),
);

/** Raw datasets (no preamble, no meta) still start with a low group: file meta 0002 or identifying 0008. */
function isDicomWithoutPreamble(head: Uint8Array): boolean {
  if (head.length < 8) return false;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  // Explicit VR big endian (retired, still written by old modalities) starts 00 08 with a VR.
  if (view.getUint16(0, false) === 0x0008 && VRS.has(String.fromCharCode(head[4]!, head[5]!))) return view.getUint16(2, false) <= 0x1fff;
  const group = view.getUint16(0, true);
  if (group !== 0x0002 && group !== 0x0008) return false;
  const element = view.getUint16(2, true);
  if (element > 0x1fff) return false;
  const vr = String.fromCharCode(head[4]!, head[5]!);
  if (VRS.has(vr)) return true;
  const length = view.getUint32(4, true);
  return length % 2 === 0 && length < 0x10000;
}

/** The .lzma ("alone") header has no magic: properties, dictionary size, size, then a zero byte. */
function isLzmaAlone(head: Uint8Array): boolean {
  if (head.length < 14 || head[0]! > 224) return false;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const dict = view.getUint32(1, true);
  const plausibleDict = dict === 0xffffffff || [...Array(32).keys()].some((n) => dict === 2 ** n || dict === 2 ** n + 2 ** (n - 1));
  if (!plausibleDict || dict < 4096) return false;
  const size = view.getBigUint64(5, true);
  if (size !== 0xffffffffffffffffn && size >= 2n ** 48n) return false;
  // The range coder always starts with a zero byte.
  return head[13] === 0;
}

interface Suffix {
  suffix: string;
  kinds: readonly ContentKind[];
}

/** Longest first, so '.tar.gz' wins over '.gz'. */
const SUFFIXES: readonly Suffix[] = [
  { suffix: '.tar.lzma', kinds: ['lzma'] },
  { suffix: '.tar.bz2', kinds: ['bzip2'] },
  { suffix: '.tar.gz', kinds: ['gzip'] },
  { suffix: '.tar.xz', kinds: ['xz'] },
  { suffix: '.dcm.gz', kinds: ['gzip'] },
  { suffix: '.dicom', kinds: ['dicom'] },
  { suffix: '.lzma', kinds: ['lzma'] },
  { suffix: '.tbz2', kinds: ['bzip2'] },
  { suffix: '.tbz', kinds: ['bzip2'] },
  { suffix: '.tgz', kinds: ['gzip'] },
  { suffix: '.txz', kinds: ['xz'] },
  { suffix: '.tlz', kinds: ['lzma'] },
  { suffix: '.zip', kinds: ['zip'] },
  { suffix: '.rar', kinds: ['rar4', 'rar5'] },
  { suffix: '.tar', kinds: ['tar'] },
  { suffix: '.bz2', kinds: ['bzip2'] },
  { suffix: '.dcm', kinds: ['dicom'] },
  { suffix: '.7z', kinds: ['7z'] },
  { suffix: '.gz', kinds: ['gzip'] },
  { suffix: '.xz', kinds: ['xz'] },
];

function matchSuffix(name: string): Suffix | null {
  const lower = name.toLowerCase();
  return SUFFIXES.find((s) => lower.endsWith(s.suffix) && lower.length > s.suffix.length) ?? null;
}

/** Whether the upload route accepts a file of this name (otherwise it answers 415). */
export function acceptedExtension(name: string): boolean {
  return matchSuffix(name) !== null;
}

/** The kinds a name promises, or null when the name promises nothing (no or unknown extension). */
export function kindsForName(name: string): readonly ContentKind[] | null {
  return matchSuffix(name)?.kinds ?? null;
}

const DESCRIPTIONS: Record<ContentKind, string> = {
  zip: 'a ZIP archive',
  rar4: 'a RAR 4 archive',
  rar5: 'a RAR 5 archive',
  '7z': 'a 7z archive',
  tar: 'a tar archive',
  gzip: 'a gzip stream',
  bzip2: 'a bzip2 stream',
  xz: 'an xz stream',
  lzma: 'an LZMA stream',
  dicom: 'a DICOM file',
  unknown: 'neither an archive nor DICOM',
};

const HINT_EXTENSION: Record<ContentKind, string | null> = {
  zip: '.zip',
  rar4: '.rar',
  rar5: '.rar',
  '7z': '.7z',
  tar: '.tar',
  gzip: '.gz',
  bzip2: '.bz2',
  xz: '.xz',
  lzma: '.lzma',
  dicom: '.dcm',
  unknown: null,
};

/** The extension a file of this kind should have, or null for content that is no accepted kind. */
export function hintExtension(kind: ContentKind): string | null {
  return HINT_EXTENSION[kind];
}

export function describeKind(kind: ContentKind): string {
  return DESCRIPTIONS[kind];
}

/**
 * Why a file's content contradicts its name, in words its owner can act on; null when they agree
 * or the name promises nothing.
 */
export function extensionMismatch(name: string, kind: ContentKind): string | null {
  const match = matchSuffix(name);
  if (match === null || match.kinds.includes(kind)) return null;
  const hint = HINT_EXTENSION[kind];
  const advice =
    hint === null
      ? 'check that the upload finished and that this is the file you meant to send'
      : `rename it to ${hint} or upload the original file`;
  return `The file is named ${match.suffix} but its content is ${DESCRIPTIONS[kind]}; ${advice}.`;
}

/** The name of what a single-stream layer holds: 'x.dcm.gz' → 'x.dcm', 'a.tgz' → 'a.tar'. */
export function decompressedName(name: string): string {
  const lower = name.toLowerCase();
  for (const [suffix, replacement] of [
    ['.tgz', '.tar'],
    ['.tbz2', '.tar'],
    ['.tbz', '.tar'],
    ['.txz', '.tar'],
    ['.tlz', '.tar'],
    ['.gz', ''],
    ['.bz2', ''],
    ['.xz', ''],
    ['.lzma', ''],
  ] as const) {
    if (lower.endsWith(suffix) && lower.length > suffix.length) return name.slice(0, -suffix.length) + replacement;
  }
  return name;
}
