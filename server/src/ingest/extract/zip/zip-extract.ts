// The native zip path's part on the extraction worker: where each member's data starts, from its
// local header (read with yauzl), and how it is stored; native-extract.ts does the rest.
import { fstatSync } from 'node:fs';
import yauzl from 'yauzl';
import { extractNative } from '../native/native-extract.js';
import type { ExtractResult, NativeZipMember, NativeZipRequest, SettledFile } from '../sevenzip/sevenzip-protocol.js';
import { BlockingReader } from './zip-readers.js';

export function extractNativeZip(request: NativeZipRequest, post: (file: SettledFile) => void): Promise<ExtractResult> {
  return extractNative(request, post, async (archiveFd) => {
    const zip = await yauzl.fromRandomAccessReaderPromise(new BlockingReader(archiveFd), fstatSync(archiveFd).size, {
      lazyEntries: true,
      autoClose: false,
      decodeStrings: false,
    });
    const locate = async (member: NativeZipMember) => {
      const at = Object.assign(new yauzl.Entry(), { relativeOffsetOfLocalHeader: member.localHeaderOffset, compressedSize: member.compressedSize });
      const { fileDataStart } = await zip.readLocalFileHeaderPromise(at, { minimal: true });
      return { dataStart: fileDataStart, packedSize: member.compressedSize, method: member.method, crc32: member.crc32 };
    };
    return { locate, close: () => zip.close() };
  });
}
