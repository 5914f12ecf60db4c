// SHA-256 of an upload computed on a worker thread, so that hashing (~0.8 s of CPU per GiB here)
// does not sit on the thread that parses the request and feeds the disk (docs/performance.md).
// Chunks are copied into a small ring of shared slots; the worker hashes a slot while the next one
// fills, and a full ring makes `update` wait, so memory stays bounded (SLOTS × SLOT_BYTES per upload)
// however far the worker falls behind. One worker serves every upload of the process; it is started
// on first use and keeps the process alive only while an upload is being hashed.
import { Worker } from 'node:worker_threads';

const SLOT_BYTES = 1024 * 1024;
const SLOTS = 4;

// Plain JavaScript evaluated as the worker's script: nothing to bundle or transpile.
const WORKER_SOURCE = String.raw`
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const uploads = new Map();
parentPort.on('message', (m) => {
  if (m.type === 'open') {
    uploads.set(m.id, { hash: createHash('sha256'), ring: new Uint8Array(m.ring) });
  } else if (m.type === 'update') {
    const u = uploads.get(m.id);
    u.hash.update(u.ring.subarray(m.offset, m.offset + m.length));
    parentPort.postMessage({ type: 'hashed', id: m.id, slot: m.slot });
  } else if (m.type === 'digest') {
    const u = uploads.get(m.id);
    uploads.delete(m.id);
    parentPort.postMessage({ type: 'digest', id: m.id, hex: u.hash.digest('hex') });
  } else if (m.type === 'close') {
    uploads.delete(m.id);
  }
});
`;

type Reply = { type: 'hashed'; id: number; slot: number } | { type: 'digest'; id: number; hex: string };

interface Listener {
  onReply(reply: Reply): void;
  onFailure(error: Error): void;
}

let shared: { worker: Worker; listeners: Map<number, Listener> } | null = null;
let nextId = 1;

function sharedWorker(): { worker: Worker; listeners: Map<number, Listener> } {
  if (shared !== null) return shared;
  const worker = new Worker(WORKER_SOURCE, { eval: true });
  const listeners = new Map<number, Listener>();
  const current = { worker, listeners };
  const fail = (error: Error) => {
    // The next upload starts a new worker; the ones in flight fail (a 500, nothing stored).
    if (shared === current) shared = null;
    for (const listener of listeners.values()) listener.onFailure(error);
    listeners.clear();
  };
  worker.on('message', (reply: Reply) => listeners.get(reply.id)?.onReply(reply));
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`the SHA-256 worker exited (${code})`)));
  worker.unref();
  shared = current;
  return current;
}

export class OffThreadSha256 {
  readonly #id = nextId++;
  readonly #worker: Worker;
  readonly #listeners: Map<number, Listener>;
  readonly #ring = new SharedArrayBuffer(SLOT_BYTES * SLOTS);
  readonly #bytes = new Uint8Array(this.#ring);
  readonly #busy: boolean[] = new Array<boolean>(SLOTS).fill(false);
  #slot = 0;
  #filled = 0;
  #waiting: { slot: number; resume: () => void; fail: (error: Error) => void } | null = null;
  #digest: { resolve: (hex: string) => void; reject: (error: Error) => void } | null = null;
  #failure: Error | null = null;
  #closed = false;

  constructor() {
    const { worker, listeners } = sharedWorker();
    this.#worker = worker;
    this.#listeners = listeners;
    listeners.set(this.#id, { onReply: (reply) => this.#onReply(reply), onFailure: (error) => this.#fail(error) });
    worker.ref();
    worker.postMessage({ type: 'open', id: this.#id, ring: this.#ring });
  }

  /**
   * Takes a copy of `chunk`. Returns a promise when the ring is full: call again only once it
   * resolves (it rejects if the worker failed).
   */
  update(chunk: Uint8Array): Promise<void> | undefined {
    if (this.#failure) return Promise.reject(this.#failure);
    let offset = 0;
    while (offset < chunk.length) {
      if (this.#busy[this.#slot]) return this.#waitFor(this.#slot).then(() => this.update(chunk.subarray(offset)));
      const length = Math.min(SLOT_BYTES - this.#filled, chunk.length - offset);
      this.#bytes.set(chunk.subarray(offset, offset + length), this.#slot * SLOT_BYTES + this.#filled);
      this.#filled += length;
      offset += length;
      if (this.#filled === SLOT_BYTES) this.#send();
    }
    return undefined;
  }

  /** Lower-case hex of every byte given to `update`; the hasher cannot be used afterwards. */
  digest(): Promise<string> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#filled > 0) {
      // The last slot may still be queued behind others; the worker takes messages in order.
      if (this.#busy[this.#slot]) return this.#waitFor(this.#slot).then(() => this.digest());
      this.#send();
    }
    return new Promise<string>((resolve, reject) => {
      this.#digest = { resolve, reject };
      this.#worker.postMessage({ type: 'digest', id: this.#id });
    });
  }

  /** Forgets the upload (it failed or was refused); safe to call more than once. */
  close(): void {
    if (this.#closed) return;
    this.#forget();
    this.#fail(new Error('the upload was closed before its SHA-256 was taken'));
    this.#worker.postMessage({ type: 'close', id: this.#id });
  }

  #send(): void {
    this.#busy[this.#slot] = true;
    this.#worker.postMessage({ type: 'update', id: this.#id, slot: this.#slot, offset: this.#slot * SLOT_BYTES, length: this.#filled });
    this.#slot = (this.#slot + 1) % SLOTS;
    this.#filled = 0;
  }

  #waitFor(slot: number): Promise<void> {
    return new Promise<void>((resume, fail) => {
      this.#waiting = { slot, resume, fail };
    });
  }

  #onReply(reply: Reply): void {
    if (reply.type === 'hashed') {
      this.#busy[reply.slot] = false;
      const waiting = this.#waiting;
      if (waiting?.slot === reply.slot) {
        this.#waiting = null;
        waiting.resume();
      }
      return;
    }
    this.#forget();
    this.#digest?.resolve(reply.hex);
    this.#digest = null;
  }

  #forget(): void {
    this.#closed = true;
    this.#listeners.delete(this.#id);
    if (this.#listeners.size === 0) this.#worker.unref();
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    this.#waiting?.fail(error);
    this.#waiting = null;
    this.#digest?.reject(error);
    this.#digest = null;
  }
}
