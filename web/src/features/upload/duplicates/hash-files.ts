import { HASH_MAX_BYTES, sha256Hex } from './sha256';
import type { HashAnswer, HashRequest } from './sha256.worker';

/** Each file's SHA-256, or null when it was not hashed (too large, or unreadable). In a Web Worker where there is one. */
export async function hashFiles(files: readonly File[]): Promise<(string | null)[]> {
  const wanted = files.map((f) => f.size <= HASH_MAX_BYTES);
  // jsdom (tests) has no workers: the same digest runs here.
  if (typeof Worker === 'undefined') return Promise.all(files.map((f, i) => (wanted[i] ? sha256Hex(f).catch(() => null) : Promise.resolve(null))));
  const worker = new Worker(new URL('./sha256.worker.ts', import.meta.url), { type: 'module' });
  const waiting = new Map<number, (sha256: string | null) => void>();
  worker.onmessage = (event: MessageEvent<HashAnswer>) => {
    waiting.get(event.data.id)?.(event.data.sha256);
    waiting.delete(event.data.id);
  };
  worker.onerror = () => {
    waiting.forEach((done) => done(null));
    waiting.clear();
  };
  try {
    return await Promise.all(
      files.map((file, id) => {
        if (!wanted[id]) return Promise.resolve(null);
        return new Promise<string | null>((resolve) => {
          waiting.set(id, resolve);
          worker.postMessage({ id, file } satisfies HashRequest);
        });
      }),
    );
  } finally {
    worker.terminate();
  }
}
