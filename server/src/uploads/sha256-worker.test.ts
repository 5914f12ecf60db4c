import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { IDLE_RETIRE_MS, sha256WorkerRunning, startSha256, WORKER_MIN_BYTES } from './sha256-worker.js';

const sha256 = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest('hex');

async function feed(job: ReturnType<typeof startSha256>, chunks: Buffer[]): Promise<void> {
  for (const chunk of chunks) await job.update(chunk);
}

describe('SHA-256 on the worker thread', () => {
  it('answers the digest of every byte fed, in order, for chunks of any size (larger than a slot, empty, one byte)', async () => {
    const chunks = [randomBytes(1), randomBytes(64 * 1024), Buffer.alloc(0), randomBytes(300 * 1024 + 7), randomBytes(17)];
    const job = startSha256();
    await feed(job, chunks);
    expect(await job.digest()).toBe(sha256(...chunks));
  });

  it('answers the digest of nothing for a job fed nothing', async () => {
    expect(await startSha256().digest()).toBe(sha256());
  });

  it('keeps jobs apart when their chunks interleave, and goes round the ring many times (more than its 2 MiB)', async () => {
    const a = Array.from({ length: 96 }, () => randomBytes(64 * 1024 - 13));
    const b = Array.from({ length: 96 }, () => randomBytes(40 * 1024));
    const jobA = startSha256();
    const jobB = startSha256();
    // Both fed at once without waiting for the worker: the ring fills and the feeders wait for room.
    await Promise.all([feed(jobA, a), feed(jobB, b)]);
    const [digestA, digestB] = await Promise.all([jobA.digest(), jobB.digest()]);
    expect(digestA).toBe(sha256(...a));
    expect(digestB).toBe(sha256(...b));
  });

  it('forgets a cancelled job without disturbing the others, and refuses to feed or read it again', async () => {
    const kept = randomBytes(100_000);
    const cancelled = startSha256();
    const job = startSha256();
    await cancelled.update(randomBytes(100_000));
    await job.update(kept);
    cancelled.cancel();
    expect(await job.digest()).toBe(sha256(kept));
    await expect(cancelled.digest()).rejects.toThrow('already been taken');
    await expect(job.update(kept)).rejects.toThrow('already been taken');
  });

  it('copies each chunk when it takes it, so the caller may reuse the buffer at once', async () => {
    const buffer = Buffer.alloc(8192, 1);
    const job = startSha256();
    await job.update(buffer);
    buffer.fill(2);
    await job.update(buffer);
    expect(await job.digest()).toBe(sha256(Buffer.alloc(8192, 1), Buffer.alloc(8192, 2)));
  });
});

describe('SHA-256 of a small upload', () => {
  it('is taken inline with the same answer as on the worker', async () => {
    const chunks = [randomBytes(1000), randomBytes(70 * 1024), randomBytes(3)];
    const inline = startSha256(WORKER_MIN_BYTES - 1);
    const onWorker = startSha256(WORKER_MIN_BYTES);
    await Promise.all([feed(inline, chunks), feed(onWorker, chunks)]);
    expect(await inline.digest()).toBe(sha256(...chunks));
    expect(await onWorker.digest()).toBe(sha256(...chunks));
  });

  it('stops the worker once idle, keeps it while a job is open, and starts another for the next large upload', async () => {
    const chunks = [randomBytes(200 * 1024)];
    const open = startSha256();
    await feed(open, chunks);
    const idle = () => new Promise((resolve) => setTimeout(resolve, IDLE_RETIRE_MS + 500));
    await idle();
    // A job still open keeps it, however long it waits for its next bytes.
    expect(sha256WorkerRunning()).toBe(true);
    expect(await open.digest()).toBe(sha256(...chunks));
    await idle();
    expect(sha256WorkerRunning()).toBe(false);

    const next = startSha256();
    expect(sha256WorkerRunning()).toBe(true);
    await feed(next, chunks);
    expect(await next.digest()).toBe(sha256(...chunks));
    // A cancelled job ends as a digested one does.
    startSha256().cancel();
    await idle();
    expect(sha256WorkerRunning()).toBe(false);
  });
});
