// Group commit for rows written by many requests at once (a folder's files arriving 8 at a time):
// callers arriving in the same turn of the event loop, or while a write is running, share one
// write. A write transaction costs far more than one more row in it (in
// SQLite every commit appends the changed index pages to the log), as the storage's directory
// fsyncs are shared (FsStorage#syncDir).

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

export class GroupCommit<T, R> {
  #queue: Waiting<T, R>[] = [];
  #running = false;

  /**
   * `write` records a batch and answers one result per item, in order. When it fails, each item of
   * the batch is written again on its own, so one bad item (a unique index's refusal) fails alone.
   */
  constructor(
    private readonly maxBatch: number,
    private readonly write: (items: T[]) => Promise<R[]>,
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      if (this.#running) return;
      this.#running = true;
      // After the I/O callbacks of this turn of the event loop: the requests whose bodies ended
      // together join this write.
      setImmediate(() => void this.#drain());
    });
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, this.maxBatch);
        try {
          const results = await this.write(batch.map((w) => w.item));
          batch.forEach((w, i) => w.resolve(results[i]!));
        } catch (err) {
          if (batch.length === 1) batch[0]!.reject(err);
          else for (const w of batch) await this.write([w.item]).then((r) => w.resolve(r[0]!), w.reject);
        }
      }
    } finally {
      this.#running = false;
    }
  }
}
