import { bundleParts, TAR_END, type BundleMember } from '@portal/contract/delivery-bundle';

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
  return packParts(files.map((entry) => ({ member: memberOf(entry), parts: [entry.file] })));
}

/** A member whose bytes are Blob parts. */
export interface PartsMember {
  member: BundleMember;
  parts: BlobPart[];
}

/** The tar of members given as parts, as one File: one Blob for the bundle, none per member. */
export function packParts(members: readonly PartsMember[]): File {
  const parts = bundleParts(members).map((part) => (part instanceof Uint8Array ? plain(part) : part));
  return new File(coalesced(parts), BUNDLE_NAME, { type: 'application/x-tar' });
}

/** The tar of members already packed (their headers, bytes and padding) in a few Blobs, in order: one Blob of a few parts. */
export function packPacked(packed: readonly Blob[]): File {
  return new File([...packed, plain(TAR_END)], BUNDLE_NAME, { type: 'application/x-tar' });
}

/**
 * Neighbouring byte parts (a member's padding, the next one's header, a de-identified header)
 * joined into one: Chromium's Blob constructor pays for each part, not for the bytes.
 */
export function coalesced(parts: readonly (BlobPart | Uint8Array)[]): BlobPart[] {
  const out: BlobPart[] = [];
  let run: Uint8Array[] = [];
  const flush = () => {
    if (run.length === 1) out.push(run[0] as Uint8Array<ArrayBuffer>);
    else if (run.length > 1) {
      const joined = new Uint8Array(run.reduce((n, r) => n + r.length, 0));
      let at = 0;
      for (const r of run) {
        joined.set(r, at);
        at += r.length;
      }
      out.push(joined);
    }
    run = [];
  };
  for (const part of parts) {
    if (part instanceof Uint8Array) {
      if (part.length > 0) run.push(part);
      continue;
    }
    flush();
    out.push(part);
  }
  flush();
  return out;
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
