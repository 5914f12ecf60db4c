// Bodies read whole into memory (a small multipart upload, a delivery's small file sent with its tus
// creation) are counted here, so that many slow requests cannot grow the server's memory unbounded.

/**
 * At most this many bytes of bodies are held in memory at once by one path, by all requests together.
 * Past it a request streams (a delivery's file goes the tus way, which streams to disk and counts
 * each user's open uploads): many connections each sending a slow megabyte cannot grow the server's
 * memory without bound.
 */
export const WHOLE_FILES_MEMORY_BYTES = 32 * 1024 * 1024;

/** The bytes one path holds in memory, reserved before a body is read and given back after. */
export class WholeFileMemory {
  #held = 0;

  constructor(private readonly limit: number = WHOLE_FILES_MEMORY_BYTES) {}

  /** Reserves `bytes`, or answers false when that would pass the limit. */
  take(bytes: number): boolean {
    if (this.#held + bytes > this.limit) return false;
    this.#held += bytes;
    return true;
  }

  giveBack(bytes: number): void {
    this.#held -= bytes;
  }

  get held(): number {
    return this.#held;
  }
}
