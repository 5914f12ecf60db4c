import { Inflate } from 'fflate';
import { DICOM_SNIFF_BYTES, looksLikeDicom } from '../dicom-sniff';

export interface ZipMember {
  path: string;
  /** The member's stored bytes: a slice of the archive, deflated when `deflated`. */
  data: Blob;
  deflated: boolean;
  size: number;
  mtimeMs: number;
  dicom: boolean;
  /** Why it cannot be unpacked here (encrypted, another compression method), if so. */
  refused?: string;
}

export class ZipError extends Error {}

const EOCD = 0x06054b50;
const EOCD64_LOCATOR = 0x07064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX_COMMENT = 0xffff;

async function bytesOf(blob: Blob, start: number, end: number): Promise<DataView> {
  return new DataView(await blob.slice(start, end).arrayBuffer());
}

const u64 = (view: DataView, at: number) => Number(view.getBigUint64(at, true));

/** The central directory's place and size, from the end record (zip64's when the archive needs it). */
async function directoryOf(zip: Blob): Promise<{ offset: number; size: number }> {
  const tailStart = Math.max(0, zip.size - 22 - MAX_COMMENT);
  const tail = await bytesOf(zip, tailStart, zip.size);
  let eocd = -1;
  for (let i = tail.byteLength - 22; i >= 0; i--) {
    if (tail.getUint32(i, true) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new ZipError('not a zip archive');
  let size = tail.getUint32(eocd + 12, true);
  let offset = tail.getUint32(eocd + 16, true);
  if ((offset === 0xffffffff || size === 0xffffffff) && eocd >= 20 && tail.getUint32(eocd - 20, true) === EOCD64_LOCATOR) {
    const record = await bytesOf(zip, u64(tail, eocd - 20 + 8), u64(tail, eocd - 20 + 8) + 56);
    size = u64(record, 40);
    offset = u64(record, 48);
  }
  if (offset + size > zip.size) throw new ZipError('the archive is incomplete');
  return { offset, size };
}

function dosTime(date: number, time: number): number {
  return new Date(1980 + (date >> 9), ((date >> 5) & 15) - 1, date & 31, time >> 11, (time >> 5) & 63, (time & 31) * 2).getTime();
}

/** The first bytes of a deflated member, to tell DICOM apart without unpacking all of it. */
async function inflatedHead(data: Blob): Promise<Uint8Array> {
  const compressed = new Uint8Array(await data.slice(0, 4096).arrayBuffer());
  const out: Uint8Array[] = [];
  try {
    const inflate = new Inflate((chunk) => out.push(chunk));
    inflate.push(compressed, compressed.length === data.size);
  } catch {
    // A damaged member shows in its de-identification, which names it.
  }
  const head = new Uint8Array(DICOM_SNIFF_BYTES);
  let filled = 0;
  for (const chunk of out) {
    const part = chunk.subarray(0, head.length - filled);
    head.set(part, filled);
    filled += part.length;
  }
  return head.subarray(0, filled);
}

/**
 * Lists a zip's files from its central directory (read from the end of the file) without reading
 * the members: each is a slice of the archive, inflated only when it is de-identified.
 */
export async function readZip(zip: Blob): Promise<ZipMember[]> {
  const { offset, size } = await directoryOf(zip);
  const dir = await bytesOf(zip, offset, offset + size);
  const members: ZipMember[] = [];
  let at = 0;
  while (at + 46 <= dir.byteLength && dir.getUint32(at, true) === CENTRAL) {
    const entry = at;
    const flags = dir.getUint16(at + 8, true);
    const method = dir.getUint16(at + 10, true);
    let csize = dir.getUint32(at + 20, true);
    let usize = dir.getUint32(at + 24, true);
    const nameLength = dir.getUint16(at + 28, true);
    const extraLength = dir.getUint16(at + 30, true);
    const commentLength = dir.getUint16(at + 32, true);
    const mode = dir.getUint32(at + 38, true) >>> 16;
    let local = dir.getUint32(at + 42, true);
    const nameBytes = new Uint8Array(dir.buffer, at + 46, nameLength);
    const path = new TextDecoder().decode(nameBytes);
    // Zip64: the sizes and offset that do not fit are in extra field 1, in this order.
    for (let e = at + 46 + nameLength; e + 4 <= at + 46 + nameLength + extraLength; ) {
      const id = dir.getUint16(e, true);
      const length = dir.getUint16(e + 2, true);
      if (id === 1) {
        let f = e + 4;
        if (usize === 0xffffffff) {
          usize = u64(dir, f);
          f += 8;
        }
        if (csize === 0xffffffff) {
          csize = u64(dir, f);
          f += 8;
        }
        if (local === 0xffffffff) local = u64(dir, f);
      }
      e += 4 + length;
    }
    at += 46 + nameLength + extraLength + commentLength;
    const isLink = (mode & 0xf000) === 0xa000;
    if (path.endsWith('/') || isLink) continue;
    const header = await bytesOf(zip, local, local + 30);
    if (header.getUint32(0, true) !== LOCAL) throw new ZipError('the archive is damaged');
    const start = local + 30 + header.getUint16(26, true) + header.getUint16(28, true);
    const data = zip.slice(start, start + csize);
    const mtimeMs = dosTime(dir.getUint16(entry + 14, true), dir.getUint16(entry + 12, true));
    const refused = flags & 1 ? 'encrypted: unpack it with its password and send the folder' : method !== 0 && method !== 8 ? 'packed with a compression this browser cannot unpack: unpack the archive and send the folder' : undefined;
    const head = refused ? new Uint8Array(0) : method === 8 ? await inflatedHead(data) : new Uint8Array(await data.slice(0, DICOM_SNIFF_BYTES).arrayBuffer());
    members.push({ path, data, deflated: method === 8, size: usize, mtimeMs, dicom: looksLikeDicom(head), ...(refused && { refused }) });
  }
  return members;
}
