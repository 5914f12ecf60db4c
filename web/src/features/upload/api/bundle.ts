import { TAR_END, tarMemberHeader, tarPadding, type BundleMember } from '@portal/contract';

/** A file of a picked folder as it goes into a bundle: its path inside the folder names the member. */
export interface BundleFile {
  file: File;
  path: string;
}

/** The name a bundle's upload carries (`filename`); the server reads its members' names, not this. */
export const BUNDLE_NAME = 'bundle.tar';

export function memberOf({ file, path }: BundleFile): BundleMember {
  return { path, size: file.size, mtimeMs: file.lastModified };
}

/** The contract's blocks are made with `new Uint8Array(n)`: plain ArrayBuffers, which is what a Blob takes. */
function plain(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes as Uint8Array<ArrayBuffer>;
}

/**
 * The tar of a folder's small files as one File: headers and padding are the only bytes made here;
 * each member is its File as a Blob part, so the browser reads it from disk while sending and no
 * file is ever read into memory or copied by the page.
 */
export function packBundle(files: readonly BundleFile[]): File {
  const parts: BlobPart[] = [];
  for (const entry of files) parts.push(plain(tarMemberHeader(memberOf(entry))), entry.file, plain(tarPadding(entry.file.size)));
  parts.push(plain(TAR_END));
  return new File(parts, BUNDLE_NAME, { type: 'application/x-tar' });
}

/**
 * A short, stable name for a list of files (path, size, modification time), for resume keys:
 * a bundle of 1,000 files must not make a localStorage key of 50 KB. Not a security boundary
 * (keys are also scoped by user, project and delivery), so a fast 53-bit hash (cyrb53) does.
 */
export function signatureOf(files: readonly BundleFile[]): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  const text = JSON.stringify(files.map((f) => [f.path, f.file.size, f.file.lastModified]));
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  const hash = (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
  return `${files.length}-${hash}`;
}
