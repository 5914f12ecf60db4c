// Large uploads written around the page cache (O_DIRECT). On the machines the portal is measured on,
// a buffered write costs far more CPU than its copy: each GiB of page cache is memory the host hands
// back to the guest page by page, 1.5–4 s of kernel time per GiB (`dd` of 4 GiB: 6–13 s of system
// time buffered, 0.4 s direct), and on two cores that time is what an upload's speed depends on
// (docs/performance.md, "Writing around the page cache"). An upload's bytes are written once and
// read once by its processing job, so caching them buys little; MinIO writes large objects the same
// way for the same reasons.
//
// O_DIRECT wants the buffer's address, the file offset and the length aligned to the device's
// block. Node's Buffers come from malloc (16-byte aligned at best), so the bytes are copied into
// blocks carved from WebAssembly memory, which V8 maps page-aligned. A full block goes out on a
// descriptor opened with O_DIRECT; everything else (the bytes before the first aligned offset of a
// write that starts mid-file, the last partial block, all of a small file, the bytes staged when
// the stream is destroyed) goes through an ordinary descriptor. The two never write the same page.
// Where O_DIRECT is refused (a filesystem without it, an alignment the device does not take) the
// stream carries on through the ordinary descriptor, as a plain write stream would.
import fs from 'node:fs';
import { Writable } from 'node:stream';

/** Bytes per direct write. */
export const DIRECT_BLOCK_BYTES = 1024 * 1024;
/** Offsets and lengths of direct writes are multiples of this (a page; any device block divides it). */
const ALIGN = 4096;
/** Direct writes one stream keeps in progress at once: the disk works while the next block fills. */
const IN_FLIGHT = 2;
/** Blocks in one WebAssembly memory. */
const BLOCKS_PER_SLAB = 8;
/** At most this many blocks exist (64 MiB): past it a stream writes through the page cache. */
const MAX_BLOCKS = 64;
const WASM_PAGE_BYTES = 64 * 1024;

/** Page-aligned blocks, made on demand and reused; never freed, so their number is bounded. */
export class AlignedBlocks {
  readonly #free: Buffer[] = [];
  #made = 0;

  constructor(
    readonly blockBytes = DIRECT_BLOCK_BYTES,
    private readonly maxBlocks = MAX_BLOCKS,
    private readonly allocate: (bytes: number) => Uint8Array = wasmMemory,
  ) {}

  /** A free block, or undefined when all that may exist are in use. */
  take(): Buffer | undefined {
    const free = this.#free.pop();
    if (free !== undefined) return free;
    if (this.#made >= this.maxBlocks) return undefined;
    const count = Math.min(BLOCKS_PER_SLAB, this.maxBlocks - this.#made);
    const slab = this.allocate(count * this.blockBytes);
    const block = (i: number) => Buffer.from(slab.buffer, slab.byteOffset + i * this.blockBytes, this.blockBytes);
    for (let i = 1; i < count; i += 1) this.#free.push(block(i));
    this.#made += count;
    return block(0);
  }

  give(block: Buffer): void {
    this.#free.push(block);
  }
}

// TypeScript declares WebAssembly's values only in the DOM library; this is the one used here.
const WasmMemory = (globalThis as unknown as { WebAssembly: { Memory: new (d: { initial: number }) => { buffer: ArrayBuffer } } })
  .WebAssembly.Memory;

function wasmMemory(bytes: number): Uint8Array {
  // Never grown: growing would detach the buffer under the blocks handed out.
  return new Uint8Array(new WasmMemory({ initial: Math.ceil(bytes / WASM_PAGE_BYTES) }).buffer);
}

const sharedBlocks = new AlignedBlocks();

export interface DirectWriteOptions {
  /** An open descriptor of `file`, for the unaligned writes; the caller closes it, after the stream has closed. */
  fd: number;
  /** Where the first byte goes. */
  start?: number;
  /** Where the blocks come from (tests). */
  blocks?: AlignedBlocks;
}

type Done = (err?: Error | null) => void;

/**
 * A write stream into `file` from `start`: full blocks through O_DIRECT, the rest through `fd`.
 * Once it has finished or been destroyed, every byte it took is written (nothing of it is synced:
 * the caller fsyncs `fd`, which covers both descriptors' writes of the file).
 */
export class DirectWriteStream extends Writable {
  readonly #file: string;
  readonly #fd: number;
  readonly #blocks: AlignedBlocks;
  /** The O_DIRECT descriptor, opened at the first full block. */
  #directFd: number | undefined;
  /** O_DIRECT was refused (at open, or a write): the ordinary descriptor from then on. */
  #directRefused = false;
  #block: Buffer | undefined;
  /** File offset of the block's first byte (aligned), and the block's first and next free byte. */
  #blockAt: number;
  #from: number;
  #fill: number;
  #inFlight = 0;
  #afterWrites: (() => void)[] = [];
  #failure: Error | undefined;
  /** Bytes on disk (written, not synced), in the order of the stream. */
  bytesWritten = 0;

  constructor(file: string, options: DirectWriteOptions) {
    // One chunk at a time into the block: the stream's own buffer adds nothing.
    super({ highWaterMark: 64 * 1024, decodeStrings: true });
    const start = options.start ?? 0;
    this.#file = file;
    this.#fd = options.fd;
    this.#blocks = options.blocks ?? sharedBlocks;
    this.#blockAt = this.#from = this.#fill = 0;
    this.#startBlockAt(start);
  }

  /** The next block starts at file offset `at` (its page's start, the bytes before unused). */
  #startBlockAt(at: number): void {
    this.#blockAt = at - (at % ALIGN);
    this.#from = this.#fill = at - this.#blockAt;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: Done): void {
    if (this.#failure) return done(this.#failure);
    let offset = 0;
    while (offset < chunk.length) {
      this.#block ??= this.#blocks.take();
      if (this.#block === undefined) {
        // Every block is in use by other uploads: this one goes through the page cache.
        const at = this.#blockAt + this.#fill;
        this.#plainWrite(chunk.subarray(offset), at);
        this.#startBlockAt(at + chunk.length - offset);
        break;
      }
      const room = this.#blocks.blockBytes - this.#fill;
      const n = Math.min(room, chunk.length - offset);
      chunk.copy(this.#block, this.#fill, offset, offset + n);
      this.#fill += n;
      offset += n;
      if (this.#fill === this.#blocks.blockBytes) this.#sendBlock();
    }
    if (this.#inFlight < IN_FLIGHT) return done();
    this.#afterWrites.push(() => done(this.#failure));
  }

  override _final(done: Done): void {
    this.#settle(done);
  }

  override _destroy(err: Error | null, done: Done): void {
    // What arrived is written even so: a tus upload cut short resumes from the file's length.
    this.#settle((settleErr) => done(err ?? settleErr ?? null));
  }

  /** Writes the staged bytes through `fd`, waits for every write, closes the direct descriptor. */
  #settle(done: Done): void {
    this.#whenIdle(() => {
      const block = this.#block;
      this.#block = undefined;
      if (block !== undefined) {
        if (this.#fill > this.#from && this.#failure === undefined) {
          this.#plainWrite(block.subarray(this.#from, this.#fill), this.#blockAt + this.#from, block);
        } else {
          this.#blocks.give(block);
        }
      }
      this.#whenIdle(() => {
        const direct = this.#directFd;
        this.#directFd = undefined;
        this.#directRefused = true;
        if (direct === undefined) return done(this.#failure);
        fs.close(direct, () => done(this.#failure));
      });
    });
  }

  #sendBlock(): void {
    const block = this.#block!;
    const at = this.#blockAt;
    const from = this.#from;
    this.#block = undefined;
    this.#blockAt += this.#blocks.blockBytes;
    this.#from = this.#fill = 0;
    // A stream that starts mid-page writes up to the next page boundary the ordinary way, from a
    // copy: the block goes back to the pool when its direct write is done, maybe before this one.
    const alignedFrom = Math.ceil(from / ALIGN) * ALIGN;
    if (alignedFrom > from) this.#plainWrite(Buffer.from(block.subarray(from, alignedFrom)), at + from);
    const direct = this.#direct();
    if (direct === null) {
      this.#plainWrite(block.subarray(alignedFrom), at + alignedFrom, block);
      return;
    }
    this.#inFlight += 1;
    fs.write(direct, block, alignedFrom, block.length - alignedFrom, at + alignedFrom, (err, written) => {
      if (err?.code === 'EINVAL') {
        // The device wants another alignment: the ordinary descriptor from now on (the direct one
        // is closed once no write is left on it).
        this.#directRefused = true;
        this.#inFlight -= 1;
        this.#plainWrite(block.subarray(alignedFrom), at + alignedFrom, block);
        return;
      }
      this.#wrote(err, written, block.length - alignedFrom, block);
    });
  }

  /** Writes `bytes` at `at` through `fd`; `block` goes back to the pool once they are written. */
  #plainWrite(bytes: Buffer, at: number, block?: Buffer): void {
    this.#inFlight += 1;
    fs.write(this.#fd, bytes, 0, bytes.length, at, (err, written) => this.#wrote(err, written, bytes.length, block));
  }

  #wrote(err: NodeJS.ErrnoException | null, written: number, expected: number, block: Buffer | undefined): void {
    this.#inFlight -= 1;
    if (block !== undefined) this.#blocks.give(block);
    if (err) this.#failure ??= err;
    // pwrite to a regular file writes all or fails; a short write is a full disk.
    else if (written !== expected) this.#failure ??= Object.assign(new Error('short write: the disk may be full'), { code: 'ENOSPC' });
    else this.bytesWritten += written;
    const waiting = this.#afterWrites;
    this.#afterWrites = [];
    for (const next of waiting) next();
  }

  #whenIdle(next: () => void): void {
    if (this.#inFlight === 0) return next();
    this.#afterWrites.push(() => this.#whenIdle(next));
  }

  /** The O_DIRECT descriptor, opened at the first full block (a small file never needs it). */
  #direct(): number | null {
    if (this.#directRefused) return null;
    if (this.#directFd !== undefined) return this.#directFd;
    const flag = fs.constants.O_DIRECT;
    try {
      if (flag === undefined) throw new Error('no O_DIRECT here');
      this.#directFd = fs.openSync(this.#file, fs.constants.O_WRONLY | flag);
      return this.#directFd;
    } catch {
      this.#directRefused = true;
      return null;
    }
  }
}

/**
 * Resolves once `stream` has closed, destroying it first if it has not: only then has every write
 * it started landed, and its caller's descriptor may be closed (a write still on the thread pool
 * could otherwise land in a file that reused the number).
 */
export function closed(stream: DirectWriteStream): Promise<void> {
  if (stream.closed) return Promise.resolve();
  return new Promise((resolve) => {
    stream.once('close', () => resolve());
    // The outcome is the writer's to report; here only the end matters.
    stream.once('error', () => undefined);
    stream.destroy();
  });
}
