/**
 * DICOM by content, as the server decides it (server/src/ingest/detect/detect-kind.ts): CD exports
 * and PACS dumps name their files `IM000001` or `DICOMDIR`, so the name promises nothing.
 */

/** The 128-byte preamble, 'DICM', and enough of the first element to judge a file without preamble. */
export const DICOM_SNIFF_BYTES = 132;

const VRS = new Set('AE AS AT CS DA DS DT FD FL IS LO LT OB OD OF OL OV OW PN SH SL SQ SS ST SV TM UC UI UL UN UR US UT UV'.split(' '));

function hasMagicAt128(head: Uint8Array): boolean {
  return head.length >= 132 && head[128] === 0x44 && head[129] === 0x49 && head[130] === 0x43 && head[131] === 0x4d;
}

/** Raw data sets (no preamble, no meta) still start with a low group: file meta 0002 or identifying 0008. */
function isDataSetWithoutPreamble(head: Uint8Array): boolean {
  if (head.length < 8) return false;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const vr = String.fromCharCode(head[4] ?? 0, head[5] ?? 0);
  // Explicit VR big endian (retired, still written by old modalities) starts 00 08 with a VR.
  if (view.getUint16(0, false) === 0x0008 && VRS.has(vr)) return view.getUint16(2, false) <= 0x1fff;
  const group = view.getUint16(0, true);
  if (group !== 0x0002 && group !== 0x0008) return false;
  if (view.getUint16(2, true) > 0x1fff) return false;
  if (VRS.has(vr)) return true;
  const length = view.getUint32(4, true);
  return length % 2 === 0 && length < 0x10000;
}

export function looksLikeDicom(head: Uint8Array): boolean {
  return hasMagicAt128(head) || isDataSetWithoutPreamble(head);
}

/** Reads only the first bytes, so a multi-gigabyte file costs the same as a small one. */
export async function isDicomFile(file: Blob): Promise<boolean> {
  if (file.size < 8) return false;
  const head = new Uint8Array(await file.slice(0, DICOM_SNIFF_BYTES).arrayBuffer());
  return looksLikeDicom(head);
}

/** What reading a file's first bytes found. */
export type Sniffed = 'dicom' | 'other' | 'unreadable';
export type SniffAnswer = Sniffed[];

/** A CD export holds thousands of small files: their first bytes are read a few at a time. */
const SNIFF_CONCURRENCY = 16;

export async function sniffAll(files: readonly Blob[]): Promise<Sniffed[]> {
  const kinds: Sniffed[] = [];
  let next = 0;
  const reader = async () => {
    while (next < files.length) {
      const index = next++;
      // A file removed or locked after picking cannot be read; it is left out rather than failing the lot.
      kinds[index] = await isDicomFile(files[index] as Blob).then(
        (dicom) => (dicom ? 'dicom' : 'other'),
        () => 'unreadable',
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(SNIFF_CONCURRENCY, files.length) }, reader));
  return kinds;
}

/**
 * sniffAll in a Web Worker, which the page hands the Files to (each a handle) and hears from once.
 * Where there are no workers (tests in jsdom), or the worker fails, the files are read here.
 */
export function sniffOffPage(files: readonly Blob[]): Promise<Sniffed[]> {
  if (typeof Worker === 'undefined' || files.length === 0) return sniffAll(files);
  return new Promise<Sniffed[]>((resolve) => {
    const worker = new Worker(new URL('./dicom-sniff.worker.ts', import.meta.url), { type: 'module' });
    const end = (kinds: Promise<Sniffed[]> | Sniffed[]) => {
      worker.terminate();
      resolve(kinds);
    };
    worker.onmessage = (event: MessageEvent<SniffAnswer>) => end(event.data);
    worker.onerror = () => end(sniffAll(files));
    worker.postMessage([...files]);
  });
}
