import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AlignedBlocks, closed, DirectWriteStream } from './direct-write-stream.js';

const KiB = 1024;
const BLOCK = 64 * KiB;

/** `bytes` cut into pieces of the given sizes, repeated until every byte is taken. */
function pieces(bytes: Buffer, sizes: number[]): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0, i = 0; at < bytes.length; i += 1) {
    const n = Math.min(sizes[i % sizes.length]!, bytes.length - at);
    out.push(bytes.subarray(at, at + n));
    at += n;
  }
  return out;
}

/** The codes of the errors fs.write calls answer, as they happen (the writes still run). */
function watchWriteErrors(): string[] {
  const codes: string[] = [];
  const real = fs.write;
  vi.spyOn(fs, 'write').mockImplementation(((...args: unknown[]) => {
    const cb = args[args.length - 1] as (err: NodeJS.ErrnoException | null, n: number) => void;
    (real as (...a: unknown[]) => void)(...args.slice(0, -1), (err: NodeJS.ErrnoException | null, n: number) => {
      if (err?.code) codes.push(err.code);
      cb(err, n);
    });
  }));
  return codes;
}

describe('writing around the page cache', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'direct-write-'));
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await rm(dir, { recursive: true, force: true });
  });

  /** Writes `chunks` into `file` from `start` and answers how many bytes the stream says it wrote. */
  async function write(file: string, chunks: Buffer[], start: number, blocks: AlignedBlocks): Promise<number> {
    const fd = fs.openSync(file, 'r+');
    const out = new DirectWriteStream(file, { fd, start, blocks });
    try {
      await pipeline(Readable.from(chunks), out);
      return out.bytesWritten;
    } finally {
      await closed(out);
      fs.closeSync(fd);
    }
  }

  it('stores every byte in place, whatever the start and the chunk sizes, through O_DIRECT for full blocks', async () => {
    const openSync = vi.spyOn(fs, 'openSync');
    const blocks = new AlignedBlocks(BLOCK, 8);
    for (const [start, sizes] of [
      [0, [65536]],
      [0, [1000, 7, 70000]],
      [4096, [12345]],
      [1234, [333, 65536, 1]],
    ] as [number, number[]][]) {
      const file = path.join(dir, `f-${start}-${sizes.join('-')}`);
      const before = randomBytes(start);
      await writeFile(file, before);
      const bytes = randomBytes(5 * BLOCK + 777);
      const written = await write(file, pieces(bytes, sizes), start, blocks);
      expect(written).toBe(bytes.length);
      expect((await readFile(file)).equals(Buffer.concat([before, bytes]))).toBe(true);
    }
    // Each file's full blocks went out on a descriptor of its own, opened with O_DIRECT.
    const direct = openSync.mock.calls.filter(([, flags]) => typeof flags === 'number' && (flags & fs.constants.O_DIRECT) !== 0);
    expect(direct).toHaveLength(4);
  });

  it('keeps the bytes before the first page boundary when the ordinary writes are the slow ones', async () => {
    const file = path.join(dir, 'slow-head');
    const before = randomBytes(1234);
    await writeFile(file, before);
    const fd = fs.openSync(file, 'r+');
    // Writes on the ordinary descriptor finish late; the direct ones at once, and their blocks are
    // then reused for the next bytes.
    const real = fs.write;
    vi.spyOn(fs, 'write').mockImplementation(((...args: unknown[]) => {
      const run = () => (real as (...a: unknown[]) => void)(...args);
      if (args[0] === fd) setTimeout(run, 30);
      else run();
    }));
    const bytes = randomBytes(6 * BLOCK);
    const out = new DirectWriteStream(file, { fd, start: before.length, blocks: new AlignedBlocks(BLOCK, 8) });
    await pipeline(Readable.from(pieces(bytes, [BLOCK / 2])), out);
    await closed(out);
    fs.closeSync(fd);
    expect((await readFile(file)).equals(Buffer.concat([before, bytes]))).toBe(true);
  });

  it('writes a small file without opening a second descriptor', async () => {
    const openSync = vi.spyOn(fs, 'openSync');
    const file = path.join(dir, 'small');
    await writeFile(file, '');
    const bytes = randomBytes(40 * KiB);
    const written = await write(file, pieces(bytes, [16 * KiB]), 0, new AlignedBlocks(BLOCK, 8));
    expect(written).toBe(bytes.length);
    expect((await readFile(file)).equals(bytes)).toBe(true);
    expect(openSync.mock.calls.filter(([p]) => p === file)).toHaveLength(1);
  });

  it('carries on through the ordinary descriptor where the direct write is refused (misaligned memory)', async () => {
    const refused = watchWriteErrors();
    // One byte past malloc's alignment: the kernel refuses such an address for O_DIRECT (EINVAL).
    const misaligned = new AlignedBlocks(BLOCK, 8, (bytes) => new Uint8Array(new ArrayBuffer(bytes + 1), 1, bytes));
    const file = path.join(dir, 'refused');
    await writeFile(file, '');
    const bytes = randomBytes(3 * BLOCK + 5);
    expect(await write(file, pieces(bytes, [50_000]), 0, misaligned)).toBe(bytes.length);
    expect((await readFile(file)).equals(bytes)).toBe(true);
    expect(refused).toContain('EINVAL');
  });

  it('keeps writing through the page cache when every block is taken', async () => {
    const blocks = new AlignedBlocks(BLOCK, 1);
    const held = blocks.take();
    expect(held).toBeDefined();
    const file = path.join(dir, 'no-blocks');
    await writeFile(file, 'ab');
    const bytes = randomBytes(2 * BLOCK + 99);
    expect(await write(file, pieces(bytes, [30_000]), 2, blocks)).toBe(bytes.length);
    expect((await readFile(file)).equals(Buffer.concat([Buffer.from('ab'), bytes]))).toBe(true);
  });

  it('writes what it had taken when destroyed mid-stream, so a resumed upload continues from the file length', async () => {
    const file = path.join(dir, 'cut');
    await writeFile(file, '');
    const fd = fs.openSync(file, 'r+');
    const out = new DirectWriteStream(file, { fd, blocks: new AlignedBlocks(BLOCK, 8) });
    const bytes = randomBytes(BLOCK + 10_000);
    await new Promise<void>((resolve) => out.write(bytes, () => resolve()));
    out.destroy(new Error('the client went away'));
    await closed(out);
    fs.closeSync(fd);
    expect(out.bytesWritten).toBe(bytes.length);
    expect((await readFile(file)).equals(bytes)).toBe(true);
  });

  it('fails with the disk error and does not take more bytes after it', async () => {
    const file = path.join(dir, 'fails');
    await writeFile(file, '');
    const fd = fs.openSync(file, 'r+');
    const writes = vi.spyOn(fs, 'write').mockImplementation(((...args: unknown[]) => {
      const cb = args[args.length - 1] as (err: NodeJS.ErrnoException | null, n: number) => void;
      setImmediate(() => cb(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }), 0));
    }));
    const out = new DirectWriteStream(file, { fd, blocks: new AlignedBlocks(BLOCK, 8) });
    await expect(pipeline(Readable.from(pieces(randomBytes(6 * BLOCK), [BLOCK])), out)).rejects.toMatchObject({ code: 'ENOSPC' });
    await closed(out);
    fs.closeSync(fd);
    // It stopped at the failure: of six blocks, only those already on their way were tried.
    expect(writes.mock.calls.length).toBeLessThanOrEqual(3);
    expect(out.bytesWritten).toBe(0);
  });
});
