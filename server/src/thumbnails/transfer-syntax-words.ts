// Which compressions the thumbnail renderer (dcmjs-imaging with its WebAssembly codecs) reads, and
// the names the owner reads when a series' pictures use one it does not.

/** What dcmjs-imaging 0.2 decodes (its TransferSyntax constants). */
const READABLE = new Set([
  '1.2.840.10008.1.2', // Implicit VR Little Endian
  '1.2.840.10008.1.2.1', // Explicit VR Little Endian
  '1.2.840.10008.1.2.1.99', // Deflated Explicit VR Little Endian
  '1.2.840.10008.1.2.2', // Explicit VR Big Endian
  '1.2.840.10008.1.2.5', // RLE Lossless
  '1.2.840.10008.1.2.4.50', // JPEG Baseline
  '1.2.840.10008.1.2.4.51', // JPEG Extended
  '1.2.840.10008.1.2.4.57', // JPEG Lossless
  '1.2.840.10008.1.2.4.70', // JPEG Lossless SV1
  '1.2.840.10008.1.2.4.80', // JPEG-LS Lossless
  '1.2.840.10008.1.2.4.81', // JPEG-LS Near-Lossless
  '1.2.840.10008.1.2.4.90', // JPEG 2000 Lossless
  '1.2.840.10008.1.2.4.91', // JPEG 2000
  '1.2.840.10008.1.2.4.110', // JPEG XL Lossless
  '1.2.840.10008.1.2.4.111', // JPEG XL Recompression
  '1.2.840.10008.1.2.4.112', // JPEG XL
  '1.2.840.10008.1.2.4.201', // HTJ2K Lossless
  '1.2.840.10008.1.2.4.202', // HTJ2K Lossless RPCL
  '1.2.840.10008.1.2.4.203', // HTJ2K
]);

const NAMES: Record<string, string> = {
  '1.2.840.10008.1.2.4.80': 'JPEG-LS',
  '1.2.840.10008.1.2.4.81': 'JPEG-LS',
  '1.2.840.10008.1.2.4.92': 'JPEG 2000 multi-component',
  '1.2.840.10008.1.2.4.93': 'JPEG 2000 multi-component',
  '1.2.840.10008.1.2.4.94': 'JPIP',
  '1.2.840.10008.1.2.4.95': 'JPIP',
  '1.2.840.10008.1.2.4.100': 'MPEG-2 video',
  '1.2.840.10008.1.2.4.101': 'MPEG-2 video',
  '1.2.840.10008.1.2.4.102': 'MPEG-4 video',
  '1.2.840.10008.1.2.4.103': 'MPEG-4 video',
  '1.2.840.10008.1.2.4.104': 'MPEG-4 video',
  '1.2.840.10008.1.2.4.105': 'MPEG-4 video',
  '1.2.840.10008.1.2.4.106': 'MPEG-4 video',
  '1.2.840.10008.1.2.4.107': 'HEVC video',
  '1.2.840.10008.1.2.4.108': 'HEVC video',
};

/** Whether the renderer can decode this stored transfer syntax (none recorded: DICOM's default). */
export function readable(syntax: string | null): boolean {
  return READABLE.has(syntax ?? '1.2.840.10008.1.2');
}

/** The owner's words for pictures stored in a compression the renderer lacks. */
export function unreadableWords(syntax: string): string {
  const name = NAMES[syntax] ?? `transfer syntax ${syntax}`;
  return `This series’ pictures use a compression the thumbnail renderer cannot read (${name}).`;
}
