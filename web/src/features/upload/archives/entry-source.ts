/**
 * Entries of a zip are offered as slices of the archive, still deflated, so listing a large zip
 * reads nothing but its directory; what must be inflated before use is marked here.
 */
const deflated = new WeakSet<Blob>();

export type Compression = 'none' | 'deflate';

export function markDeflated(file: Blob): void {
  deflated.add(file);
}

export function compressionOf(file: Blob): Compression {
  return deflated.has(file) ? 'deflate' : 'none';
}
