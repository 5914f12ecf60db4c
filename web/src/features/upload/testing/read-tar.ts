import { TAR_BLOCK as BLOCK, tarChecksumOk as checksumOk, tarOctal as octal, tarText as text } from '../archives/tar-header';

/** One member of a tar as read back: its name (a pax `path` wins over ustar's name) and its bytes. */
export interface TarEntry {
  path: string;
  size: number;
  mtime: number;
  /** Where the member's bytes start in the tar. */
  offset: number;
  bytes: Uint8Array;
}


/**
 * A small ustar/pax reader for the fake tus server (the real server has its own): it checks each
 * header's checksum, so a header out of place fails loudly instead of reading garbage.
 */
export function readTar(tar: Uint8Array): TarEntry[] {
  const entries: TarEntry[] = [];
  let paxPath: string | null = null;
  let at = 0;
  while (at + BLOCK <= tar.length) {
    const header = tar.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) break;
    if (!checksumOk(header)) throw new Error(`Bad tar header checksum at byte ${at}`);
    const size = octal(header.subarray(124, 136));
    const type = String.fromCharCode(header[156] ?? 0);
    const body = tar.subarray(at + BLOCK, at + BLOCK + size);
    if (type === 'x') {
      paxPath = /\d+ path=(.*)\n/.exec(new TextDecoder().decode(body))?.[1] ?? null;
    } else {
      entries.push({ path: paxPath ?? text(header.subarray(0, 100)), size, mtime: octal(header.subarray(136, 148)), offset: at + BLOCK, bytes: body });
      paxPath = null;
    }
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
  return entries;
}
