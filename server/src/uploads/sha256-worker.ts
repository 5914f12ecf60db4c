// SHA-256 of uploads on a worker thread, so that hashing (0.5–0.9 s per GiB with SHA-NI) does not
// sit on the thread that reads the request and writes the file: on two cores that thread is what an
// upload's speed depends on (docs/performance.md, "SHA-256 on a worker through a shared ring").
//
// One worker serves every upload. The main thread copies each chunk into a ring of slots in a
// SharedArrayBuffer and moves a counter; the worker, blocked in Atomics.wait until the counter
// moves, hashes the slots in place and moves its own counter back. No message per chunk: only a
// digest comes back as a message. When the ring is full the main thread waits (Atomics.waitAsync)
// before taking more bytes, which is the upload's backpressure. An earlier try fed a worker by
// postMessage and cost more CPU than it saved; this one copies once and signals through shared
// memory.
//
// Two things keep the main thread's share small (docs/performance.md, same section): the copy is a
// plain memcpy (copyInto), and each side wakes the other (Atomics.notify, a futex call) only when
// the other has said it is about to sleep, and the worker only once a few slots wait for it.
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';

const SLOTS = 32;
const SLOT_BYTES = 64 * 1024;
// A sleeping worker is woken once this many slots wait for it (or at a job's end), not for each:
// every wake is a futex call on the main thread and another on the worker's.
const WAKE_SLOTS = 8;
// Control words: how many slots the main thread has filled, how many the worker has consumed, and
// whether the worker (resp. the main thread) is asleep or about to be, waiting for the other.
const HEAD = 0;
const TAIL = 1;
const WORKER_SLEEPS = 2;
const MAIN_SLEEPS = 3;
const CONTROL_WORDS = 4;
// Per slot: job id, kind, byte count.
const DATA = 1;
const FINISH = 2;
const CANCEL = 3;

// Plain JavaScript run with `eval`: no bundling or loader is needed for a few lines that only use
// Node's own modules, under `npm start`, tsx and vitest alike.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { control, meta, data, slots, slotBytes } = workerData;
const ctrl = new Int32Array(control);
const info = new Int32Array(meta);
const bytes = new Uint8Array(data);
const hashes = new Map();
let tail = 0;
for (;;) {
  // Said before the wait, which itself checks the counter: either the main thread sees this and
  // wakes the worker, or the worker sees the new counter and does not sleep.
  Atomics.store(ctrl, ${WORKER_SLEEPS}, 1);
  Atomics.wait(ctrl, ${HEAD}, tail);
  Atomics.store(ctrl, ${WORKER_SLEEPS}, 0);
  const head = Atomics.load(ctrl, ${HEAD});
  while (tail !== head) {
    const slot = tail & (slots - 1);
    const job = info[slot * 3];
    const kind = info[slot * 3 + 1];
    if (kind === ${DATA}) {
      let hash = hashes.get(job);
      if (hash === undefined) hashes.set(job, (hash = createHash('sha256')));
      hash.update(bytes.subarray(slot * slotBytes, slot * slotBytes + info[slot * 3 + 2]));
    } else if (kind === ${FINISH}) {
      const hash = hashes.get(job) ?? createHash('sha256');
      hashes.delete(job);
      parentPort.postMessage({ job, sha256: hash.digest('hex') });
    } else {
      hashes.delete(job);
    }
    tail = (tail + 1) | 0;
    Atomics.store(ctrl, ${TAIL}, tail);
    if (Atomics.load(ctrl, ${MAIN_SLEEPS}) !== 0) Atomics.notify(ctrl, ${TAIL});
  }
}
`;

/** The SHA-256 of one stream of bytes, computed on the worker. */
export interface Sha256Job {
  /** Takes `chunk` (copied at once, or once there is room: then the promise resolves). Feed the next chunk only after. */
  update(chunk: Uint8Array): Promise<void> | undefined;
  /** The digest of every byte fed, in lower-case hex. The job is done after. */
  digest(): Promise<string>;
  /** Forgets the bytes fed so far; for a job whose digest will not be asked for. */
  cancel(): void;
}

class HashWorker {
  readonly #worker: Worker;
  readonly #ctrl = new Int32Array(new SharedArrayBuffer(CONTROL_WORDS * 4));
  readonly #meta = new Int32Array(new SharedArrayBuffer(SLOTS * 3 * 4));
  readonly #data = Buffer.from(new SharedArrayBuffer(SLOTS * SLOT_BYTES));
  readonly #digests = new Map<number, { resolve: (hex: string) => void; reject: (err: Error) => void }>();
  #head = 0;
  #nextJob = 1;
  #failure: Error | undefined;
  /** Jobs started and neither digested nor cancelled. */
  #active = 0;
  #idleTimer: NodeJS.Timeout | undefined;
  /** Set when it was stopped for being idle: the next large upload starts another. */
  #retired = false;
  /** Records waiting for room, written in order once there is some. */
  #room: Promise<void> = Promise.resolve();
  #waiting = 0;

  constructor() {
    this.#worker = new Worker(WORKER_SOURCE, {
      eval: true,
      // Its bytes arrive in shared memory and it allocates almost nothing: a small young generation
      // keeps its isolate from growing into the server's memory bound (docs/processing.md).
      resourceLimits: { maxYoungGenerationSizeMb: 1 },
      workerData: {
        control: this.#ctrl.buffer,
        meta: this.#meta.buffer,
        data: this.#data.buffer,
        slots: SLOTS,
        slotBytes: SLOT_BYTES,
      },
    });
    // Idle, it must not keep the process alive; while a digest is awaited the promise does not either.
    this.#worker.unref();
    this.#worker.on('message', ({ job, sha256 }: { job: number; sha256: string }) => {
      this.#digests.get(job)?.resolve(sha256);
      this.#digests.delete(job);
    });
    this.#worker.on('error', (err: Error) => this.#fail(err));
    this.#worker.on('exit', (code) => {
      if (!this.#retired) this.#fail(new Error(`the SHA-256 worker exited (${code})`));
    });
  }

  /** Whether it can take no more jobs: it failed, or was retired. */
  get failed(): boolean {
    return this.#failure !== undefined || this.#retired;
  }

  job(): Sha256Job {
    const id = this.#nextJob;
    this.#nextJob = (this.#nextJob + 1) | 0 || 1;
    let done = false;
    this.#began();
    return {
      update: (chunk) => {
        if (done) return Promise.reject(new Error('this SHA-256 has already been taken'));
        return this.#put(id, DATA, chunk);
      },
      digest: () => {
        if (done) return Promise.reject(new Error('this SHA-256 has already been taken'));
        done = true;
        const result = new Promise<string>((resolve, reject) => this.#digests.set(id, { resolve, reject }));
        // Until the worker answers, the process must not exit under a pending upload.
        this.#worker.ref();
        const settled = () => {
          if (this.#digests.size === 0) this.#worker.unref();
          this.#ended();
        };
        result.then(settled, settled);
        void Promise.resolve(this.#put(id, FINISH, undefined)).catch((err: unknown) => this.#rejectJob(id, err));
        if (this.#failure) this.#rejectJob(id, this.#failure);
        return result;
      },
      cancel: () => {
        if (done) return;
        done = true;
        void Promise.resolve(this.#put(id, CANCEL, undefined)).catch(() => undefined);
        this.#ended();
      },
    };
  }

  #began(): void {
    this.#active += 1;
    clearTimeout(this.#idleTimer);
  }

  /**
   * Its isolate holds ~10–20 MB for as long as it lives. A server receives a large upload now and
   * then: idle for IDLE_RETIRE_MS, the worker is stopped and its memory given back, and the next
   * large upload starts another (tens of milliseconds, against seconds of hashing).
   */
  #ended(): void {
    this.#active -= 1;
    if (this.#active > 0) return;
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => {
      if (this.#active > 0 || this.#failure) return;
      this.#retired = true;
      void this.#worker.terminate();
    }, IDLE_RETIRE_MS).unref();
  }

  /**
   * Writes `chunk` (or a control record) into the ring. Answers a promise only when it had to wait
   * for room; until it is written, later records (of any job) queue behind it, so a job's records
   * stay in order.
   */
  #put(job: number, kind: number, chunk: Uint8Array | undefined): Promise<void> | undefined {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#waiting === 0) {
      const rest = this.#write(job, kind, chunk);
      if (rest === undefined) return undefined;
      chunk = rest;
    }
    this.#waiting += 1;
    const written = this.#room.then(async () => {
      let rest: Uint8Array | undefined = chunk;
      do {
        await this.#waitForRoom();
        rest = this.#write(job, kind, rest);
      } while (rest !== undefined);
    });
    this.#room = written.finally(() => (this.#waiting -= 1)).catch(() => undefined);
    return written;
  }

  /** Fills free slots with `chunk`; answers what did not fit (undefined: all of it did). */
  #write(job: number, kind: number, chunk: Uint8Array | undefined): Uint8Array | undefined {
    let offset = 0;
    const total = chunk?.length ?? 0;
    do {
      if (this.#pending() === SLOTS) return (chunk ?? new Uint8Array(0)).subarray(offset);
      const slot = this.#head & (SLOTS - 1);
      const length = Math.min(SLOT_BYTES, total - offset);
      if (chunk && length > 0) copyInto(this.#data, slot * SLOT_BYTES, chunk, offset, offset + length);
      this.#meta[slot * 3] = job;
      this.#meta[slot * 3 + 1] = kind;
      this.#meta[slot * 3 + 2] = length;
      this.#head = (this.#head + 1) | 0;
      Atomics.store(this.#ctrl, HEAD, this.#head);
      if (Atomics.load(this.#ctrl, WORKER_SLEEPS) !== 0 && (kind !== DATA || this.#pending() >= WAKE_SLOTS)) {
        Atomics.notify(this.#ctrl, HEAD);
      }
      offset += length;
    } while (offset < total);
    return undefined;
  }

  /** Slots written and not yet hashed. */
  #pending(): number {
    return (this.#head - Atomics.load(this.#ctrl, TAIL)) | 0;
  }

  async #waitForRoom(): Promise<void> {
    for (;;) {
      if (this.#failure) throw this.#failure;
      const tail = Atomics.load(this.#ctrl, TAIL);
      if (((this.#head - tail) | 0) < SLOTS) return;
      Atomics.store(this.#ctrl, MAIN_SLEEPS, 1);
      const waited = Atomics.waitAsync(this.#ctrl, TAIL, tail, 1000);
      try {
        if (waited.async) await waited.value;
      } finally {
        Atomics.store(this.#ctrl, MAIN_SLEEPS, 0);
      }
    }
  }

  #rejectJob(job: number, err: unknown): void {
    this.#digests.get(job)?.reject(err instanceof Error ? err : new Error(String(err)));
    this.#digests.delete(job);
  }

  #fail(err: Error): void {
    this.#failure ??= err;
    for (const job of [...this.#digests.keys()]) this.#rejectJob(job, err);
  }
}

/**
 * Copies `source[start, end)` (not empty) to `target` at `at`. Buffer#fill with a pattern exactly as
 * long as the range is Node's own memcpy; TypedArray#set and Buffer#copy into shared memory go
 * through V8's copy for shared buffers (relaxed atomics, word by word), about twice the time.
 */
function copyInto(target: Buffer, at: number, source: Uint8Array, start: number, end: number): void {
  const bytes = Buffer.from(source.buffer, source.byteOffset + start, end - start);
  target.fill(bytes, at, at + (end - start));
}

let shared: HashWorker | undefined;

/** How long the worker may sit without a job before it is stopped. */
export const IDLE_RETIRE_MS = 2_000;

/** Whether a SHA-256 worker is running now and taking jobs (for tests). */
export function sha256WorkerRunning(): boolean {
  return shared !== undefined && !shared.failed;
}

/**
 * Below this many bytes a digest is taken on the calling thread: it costs a few milliseconds there,
 * while the worker's isolate costs ~10 MB of memory for the life of the process, which a server
 * that only ever receives small uploads would carry for nothing (docs/processing.md, 'Responsiveness').
 */
export const WORKER_MIN_BYTES = 64 * 1024 * 1024;

/**
 * A new SHA-256 of about `expectedBytes` bytes (unknown: assume many): on the shared worker
 * (started at the first large upload, again if it died), or inline for a small one.
 */
export function startSha256(expectedBytes?: number): Sha256Job {
  if (expectedBytes !== undefined && expectedBytes < WORKER_MIN_BYTES) return inlineSha256();
  if (shared === undefined || shared.failed) shared = new HashWorker();
  return shared.job();
}

function inlineSha256(): Sha256Job {
  const hash = createHash('sha256');
  return {
    update: (chunk) => {
      hash.update(chunk);
      return undefined;
    },
    digest: () => Promise.resolve(hash.digest('hex')),
    cancel: () => undefined,
  };
}
