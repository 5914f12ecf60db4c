import { createHash, randomBytes } from 'node:crypto';
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable, type Transform } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ResumableSha256 } from './resumable-sha256.js';

let dir: string;
let file: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'resumable-sha256-'));
  file = path.join(dir, 'upload');
  await writeFile(file, Buffer.alloc(0));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** What the tus store does with a chunk: reads it through the tap and appends what it read. */
async function store(tap: Transform | undefined, chunk: Buffer): Promise<void> {
  const passed = tap ? await buffer(Readable.from([chunk.subarray(0, 1000), chunk.subarray(1000)]).pipe(tap)) : chunk;
  await appendFile(file, passed);
}

describe('ResumableSha256', () => {
  it('gives the SHA-256 of an upload sent in several chunks without reading the file back', async () => {
    const bytes = randomBytes(300_000);
    const hashes = new ResumableSha256();
    for (let offset = 0; offset < bytes.length; offset += 100_000) {
      await store(await hashes.tap('u', file, offset), bytes.subarray(offset, offset + 100_000));
      hashes.settle('u', offset + 100_000);
    }
    // Removing the file shows the digest did not come from reading it.
    await rm(file);
    expect(hashes.digest('u', bytes.length)).toBe(sha256(bytes));
  });

  it('after a restart, hashes the bytes already stored once, then continues with the chunks', async () => {
    const bytes = randomBytes(250_000);
    const before = new ResumableSha256();
    await store(await before.tap('u', file, 0), bytes.subarray(0, 150_000));
    before.settle('u', 150_000);

    const after = new ResumableSha256();
    await store(await after.tap('u', file, 150_000), bytes.subarray(150_000));
    after.settle('u', bytes.length);
    expect(after.digest('u', bytes.length)).toBe(sha256(bytes));
  });

  it('drops a hash that went past what the store kept, and takes it again from the file', async () => {
    const bytes = randomBytes(200_000);
    const hashes = new ResumableSha256();
    // The store failed after keeping 60,000 of the 100,000 bytes the tap saw.
    const tap = await hashes.tap('u', file, 0);
    const seen = await buffer(Readable.from([bytes.subarray(0, 100_000)]).pipe(tap!));
    await appendFile(file, seen.subarray(0, 60_000));
    hashes.settle('u', 60_000);

    await store(await hashes.tap('u', file, 60_000), bytes.subarray(60_000));
    hashes.settle('u', bytes.length);
    expect(hashes.digest('u', bytes.length)).toBe(sha256(bytes));
  });

  it('answers nothing when it cannot vouch for the bytes: a failed chunk, overlapping chunks, a wrong size', async () => {
    const bytes = randomBytes(50_000);
    const hashes = new ResumableSha256();
    await store(await hashes.tap('failed', file, 0), bytes);
    hashes.settle('failed', undefined);
    expect(hashes.digest('failed', bytes.length)).toBeUndefined();

    const first = await hashes.tap('overlap', file, 0);
    expect(await hashes.tap('overlap', file, 0)).toBeUndefined();
    await store(first, bytes);
    hashes.settle('overlap', bytes.length);
    expect(hashes.digest('overlap', bytes.length)).toBeUndefined();

    await store(await hashes.tap('short', file, 0), bytes);
    hashes.settle('short', bytes.length);
    expect(hashes.digest('short', bytes.length + 1)).toBeUndefined();
  });

  it('does not hash a chunk that claims to start beyond the stored bytes', async () => {
    await writeFile(file, randomBytes(1000));
    const hashes = new ResumableSha256();
    expect(await hashes.tap('u', file, 5000)).toBeUndefined();
    expect(await hashes.tap('u', file, -1)).toBeUndefined();
  });
});
