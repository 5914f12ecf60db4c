// The native tar path's part on the extraction worker: a tar member's bytes are stored as they are,
// right after its header, at the offset the header walk found (tar-headers.ts); there is no
// checksum of the data to check. native-extract.ts does the rest.
import { extractNative } from '../native/native-extract.js';
import type { ExtractResult, NativeTarMember, NativeTarRequest, SettledFile } from '../sevenzip/sevenzip-protocol.js';

export function extractNativeTar(request: NativeTarRequest, post: (file: SettledFile) => void): Promise<ExtractResult> {
  const locate = (member: NativeTarMember) => Promise.resolve({ dataStart: member.dataStart, packedSize: member.size, method: 0 as const, crc32: null });
  return extractNative(request, post, () => Promise.resolve({ locate, close: () => undefined }));
}
