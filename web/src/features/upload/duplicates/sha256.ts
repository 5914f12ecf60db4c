/**
 * Files larger than this are not hashed before sending: Web Crypto digests a whole buffer, so the
 * file would be read into memory at once. The server still marks such a file a duplicate on arrival.
 */
export const HASH_MAX_BYTES = 256 * 1024 * 1024;

export async function sha256Hex(file: Blob): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', await file.arrayBuffer());
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}
