// 7-Zip (WebAssembly) crashes instead of reporting "encrypted" on some 7z archives whose headers
// are encrypted (-mhe), so those are recognised from the format itself.
import { open } from 'node:fs/promises';

const ENCODED_HEADER = 0x17;
const AES_CODER = Buffer.from([0x06, 0xf1, 0x07, 0x01]);
const MAX_HEADER_READ = 64 * 1024;

/** True when the 7z archive's next header is an encoded header whose coder is AES-256. */
export async function sevenZipHeadersEncrypted(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const start = Buffer.alloc(32);
    if ((await handle.read(start, 0, 32, 0)).bytesRead < 32) return false;
    const offset = start.readBigUInt64LE(12);
    const size = start.readBigUInt64LE(20);
    if (size === 0n || offset > BigInt(Number.MAX_SAFE_INTEGER)) return false;
    const length = Number(size < BigInt(MAX_HEADER_READ) ? size : BigInt(MAX_HEADER_READ));
    const header = Buffer.alloc(length);
    const { bytesRead } = await handle.read(header, 0, length, 32 + Number(offset));
    return bytesRead > 0 && header[0] === ENCODED_HEADER && header.subarray(0, bytesRead).includes(AES_CODER);
  } finally {
    await handle.close();
  }
}
