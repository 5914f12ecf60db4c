// Streams a file once: its size and sha256, and the first bytes for kind detection.
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';

const CHUNK = 1 << 20;

/** Reads with one reused buffer: several times faster than a read stream for many ~1 MB files. */
export async function sha256File(file: string, signal?: AbortSignal): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(CHUNK);
  const handle = await open(file, 'r');
  let size = 0;
  try {
    for (;;) {
      signal?.throwIfAborted();
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, size);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
      size += bytesRead;
    }
  } finally {
    await handle.close();
  }
  return { sha256: hash.digest('hex'), size };
}

export async function readHead(file: string, length: number): Promise<Uint8Array> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
