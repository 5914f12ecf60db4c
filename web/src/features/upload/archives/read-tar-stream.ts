import { looksLikeDicom, DICOM_SNIFF_BYTES } from '../dicom-sniff';
import { ByteReader } from './byte-reader';
import { TAR_BLOCK as BLOCK, tarChecksumOk as checksumOk, tarOctal as octal, tarText as text } from './tar-header';

const decoder = new TextDecoder();

export interface TarMember {
  path: string;
  size: number;
  mtimeMs: number;
  /** Where its bytes start in the (uncompressed) tar. */
  offset: number;
  /** True when its first bytes are DICOM's. */
  dicom: boolean;
  /** Its bytes, when the reader was asked to keep DICOM members' bytes (a tar read through gzip). */
  data?: Blob;
}

export class TarError extends Error {}

/**
 * Lists a tar's regular files from a stream, one header at a time. With `keep`, the bytes of DICOM
 * members are kept as Blobs (the browser may hold large Blobs on disk) and the rest is read past.
 */
export async function readTarStream(stream: ReadableStream<Uint8Array>, keep: boolean): Promise<TarMember[]> {
  const input = new ByteReader(stream.getReader());
  const members: TarMember[] = [];
  let longPath: string | null = null;
  let at = 0;
  try {
    for (;;) {
      const header = await input.take(BLOCK);
      at += header.length;
      if (header.length < BLOCK || header.every((b) => b === 0)) break;
      if (!checksumOk(header)) throw new TarError('not a tar archive');
      const size = octal(header.subarray(124, 136));
      const padded = Math.ceil(size / BLOCK) * BLOCK;
      const type = String.fromCharCode(header[156] ?? 0);
      if (type === 'x' || type === 'L') {
        const body = decoder.decode(await input.take(padded)).slice(0, size);
        longPath = type === 'L' ? body.replace(/\0.*$/s, '') : (/\d+ path=(.*)\n/.exec(body)?.[1] ?? longPath);
        at += padded;
        continue;
      }
      const prefix = text(header.subarray(345, 500));
      const path = longPath ?? (prefix ? `${prefix}/${text(header.subarray(0, 100))}` : text(header.subarray(0, 100)));
      longPath = null;
      const offset = at;
      const regular = type === '0' || type === '\0';
      const head = regular ? await input.take(Math.min(size, DICOM_SNIFF_BYTES)) : new Uint8Array(0);
      const dicom = regular && looksLikeDicom(head);
      const parts: BlobPart[] = [];
      if (keep && dicom) parts.push(head.slice());
      const rest = padded - head.length;
      let restOfData = size - head.length;
      const passed = await input.pass(rest, (piece) => {
        if (keep && dicom && restOfData > 0) parts.push(piece.slice(0, restOfData));
        restOfData -= piece.length;
      });
      if (passed < rest && restOfData > 0) throw new TarError('the archive ends in the middle of a file');
      at += head.length + passed;
      if (regular) members.push({ path, size, mtimeMs: octal(header.subarray(136, 148)) * 1000, offset, dicom, ...(keep && dicom && { data: new Blob(parts) }) });
    }
  } finally {
    input.cancel();
  }
  return members;
}
