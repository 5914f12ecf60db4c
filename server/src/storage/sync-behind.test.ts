import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SyncBehind, syncBehindOps } from './sync-behind.js';

const MiB = 1024 * 1024;

describe('syncing a large file behind its writes', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sync-behind-'));
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await rm(dir, { recursive: true, force: true });
  });

  /** Counts the real fdatasyncs (they still run) and the most ever running at once. */
  function watchSyncs() {
    const real = fs.fdatasync;
    const seen = { calls: 0, running: 0, mostAtOnce: 0 };
    vi.spyOn(fs, 'fdatasync').mockImplementation(((fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
      seen.calls += 1;
      seen.running += 1;
      seen.mostAtOnce = Math.max(seen.mostAtOnce, seen.running);
      real(fd, (err) => {
        seen.running -= 1;
        cb(err);
      });
    }));
    return seen;
  }

  it('writes every byte in order and syncs while writing, one sync at a time', async () => {
    const syncs = watchSyncs();
    const pieces = Array.from({ length: 40 }, () => randomBytes(MiB));
    const file = path.join(dir, 'upload.bin');
    const out = fs.createWriteStream(file, { highWaterMark: MiB, fs: syncBehindOps(file, 4 * MiB) });
    await pipeline(Readable.from(pieces), out);

    const expected = createHash('sha256');
    for (const piece of pieces) expected.update(piece);
    expect(createHash('sha256').update(await readFile(file)).digest('hex')).toBe(expected.digest('hex'));
    // 40 MiB with a sync every 4 MiB written: several ran, never two at once.
    expect(syncs.calls).toBeGreaterThanOrEqual(2);
    expect(syncs.calls).toBeLessThanOrEqual(10);
    expect(syncs.mostAtOnce).toBe(1);
  });

  it('adds up what several streams write to one file, as the PATCHes of a tus upload do', async () => {
    const syncs = watchSyncs();
    const file = path.join(dir, 'chunked.bin');
    await fs.promises.writeFile(file, '');
    const state = new SyncBehind(file, 4 * MiB);
    // Six chunks of 1 MiB, each written by a stream of its own, at its offset.
    for (let i = 0; i < 6; i++) {
      const out = fs.createWriteStream(file, { flags: 'r+', start: i * MiB, fs: state.ops() });
      await pipeline(Readable.from([Buffer.alloc(MiB, i)]), out);
    }
    expect(syncs.calls).toBe(1);
    const bytes = await readFile(file);
    expect(bytes.length).toBe(6 * MiB);
    expect(bytes[5 * MiB]).toBe(5);
  });

  it('does not sync a file smaller than the stretch', async () => {
    const syncs = watchSyncs();
    const file = path.join(dir, 'small.bin');
    await pipeline(Readable.from([randomBytes(3 * MiB)]), fs.createWriteStream(file, { fs: syncBehindOps(file, 4 * MiB) }));
    expect(syncs.calls).toBe(0);
    expect((await fs.promises.stat(file)).size).toBe(3 * MiB);
  });

  it('keeps writing when the file is moved away while it is written', async () => {
    const file = path.join(dir, 'moved.bin');
    const moved = path.join(dir, 'elsewhere.bin');
    const out = fs.createWriteStream(file, { highWaterMark: MiB, fs: syncBehindOps(file, MiB) });
    async function* body() {
      for (let i = 0; i < 8; i++) {
        // Halfway, the name the syncs open is gone: they find nothing and the writes go on.
        if (i === 4) await fs.promises.rename(file, moved);
        yield Buffer.alloc(MiB, i);
      }
    }
    await pipeline(body(), out);
    const bytes = await readFile(moved);
    expect(bytes.length).toBe(8 * MiB);
    expect(bytes[7 * MiB]).toBe(7);
  });
});
