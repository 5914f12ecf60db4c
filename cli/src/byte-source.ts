// What one tus upload sends, as parts in order: bytes made here (a tar header, a de-identified
// DICOM header) and ranges of files on disk (a file, or its Pixel Data after a new header). A
// range is read from disk while it is sent, so a bundle or a large file is never held in memory.
import { open } from 'node:fs/promises';

export interface FileRange {
  path: string;
  start: number;
  end: number;
}

export type Part = Uint8Array | FileRange;

const READ_BYTES = 1024 * 1024;

export function partSize(part: Part): number {
  return part instanceof Uint8Array ? part.length : part.end - part.start;
}

export function sourceSize(parts: readonly Part[]): number {
  return parts.reduce((sum, part) => sum + partSize(part), 0);
}

/** The bytes of `parts` from `from` to `to`, in pieces of at most 1 MiB. */
export async function* readRange(parts: readonly Part[], from: number, to: number): AsyncGenerator<Uint8Array> {
  let at = 0;
  for (const part of parts) {
    const size = partSize(part);
    const start = Math.max(from - at, 0);
    const end = Math.min(to - at, size);
    at += size;
    if (start >= end) continue;
    if (part instanceof Uint8Array) {
      yield part.subarray(start, end);
      continue;
    }
    const handle = await open(part.path, 'r');
    try {
      for (let position = part.start + start; position < part.start + end; ) {
        const length = Math.min(READ_BYTES, part.start + end - position);
        const { bytesRead, buffer } = await handle.read(Buffer.alloc(length), 0, length, position);
        if (bytesRead === 0) throw new Error(`${part.path} became shorter while it was being sent`);
        yield buffer.subarray(0, bytesRead);
        position += bytesRead;
      }
    } finally {
      await handle.close();
    }
  }
}
