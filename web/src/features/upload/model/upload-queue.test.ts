import { describe, expect, it } from 'vitest';
import { UploadFailure, type RunningUpload, type Transport, type UploadCallbacks, type UploadJob, type UploadResult } from '../api/tus-upload';
import type { KeptFile } from '../file-filters';
import { UploadQueue, type UploadRow } from './upload-queue';

interface Started {
  job: UploadJob;
  callbacks: UploadCallbacks;
  succeed: (fileId: number) => void;
  fail: (failure: UploadFailure) => void;
  cancelled: boolean;
  abandoned: boolean;
}

/** Uploads that end when the test says so: the queue's rules are the subject here, not the wire (see tus-upload.test.ts). */
function controlledTransport() {
  const started: Started[] = [];
  const transport: Transport = (job, callbacks) => {
    let settle: { resolve: (r: UploadResult) => void; reject: (e: unknown) => void } | undefined;
    const result = new Promise<UploadResult>((resolve, reject) => (settle = { resolve, reject }));
    const entry: Started = {
      job,
      callbacks,
      succeed: (fileId) => settle?.resolve({ fileId }),
      fail: (failure) => settle?.reject(failure),
      cancelled: false,
      abandoned: false,
    };
    started.push(entry);
    const running: RunningUpload = {
      result,
      cancel: () => {
        entry.cancelled = true;
        return Promise.resolve();
      },
      abandon: () => {
        entry.abandoned = true;
      },
    };
    return running;
  };
  const named = (name: string) => started.find((s) => s.job.path === name) as Started;
  return { transport, started, named };
}

function kept(name: string, size = 100): KeptFile {
  return { file: new File(['x'.repeat(size)], name, { lastModified: 1 }), path: name, kind: 'archive' };
}

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
const statuses = (queue: UploadQueue) => Object.fromEntries(queue.getSnapshot().rows.map((r) => [r.path, r.status]));
const refused = new UploadFailure({ message: 'Error 415', details: 'Not a ZIP archive' }, false);

function setUp(names: string[], clock = { now: 0 }) {
  const { transport, started, named } = controlledTransport();
  const queue = new UploadQueue({ projectId: 7, transport, now: () => clock.now });
  const settled: UploadRow[][] = [];
  queue.onSettled((rows) => settled.push(rows));
  queue.add(names.map((n) => kept(n)));
  return { queue, started, named, settled, clock };
}

describe('the upload queue', () => {
  it('sends four files at a time and starts the next when one ends', async () => {
    const { queue, started, named } = setUp(['a.zip', 'b.zip', 'c.zip', 'd.zip', 'e.zip', 'f.zip']);
    queue.start();
    expect(started.map((s) => s.job.path)).toEqual(['a.zip', 'b.zip', 'c.zip', 'd.zip']);
    expect(statuses(queue)).toMatchObject({ 'e.zip': 'queued', 'f.zip': 'queued' });
    named('b.zip').succeed(1);
    await flush();
    expect(started.map((s) => s.job.path)).toContain('e.zip');
    expect(started).toHaveLength(5);
    expect(started[0]?.job.projectId).toBe(7);
  });

  it('counts bytes, files, speed and time left over the batch', async () => {
    const { queue, named, clock } = setUp(['a.zip', 'b.zip']);
    queue.start();
    named('a.zip').callbacks.onProgress(50);
    clock.now = 2_000;
    named('b.zip').callbacks.onProgress(50);
    expect(queue.getSnapshot().batch).toMatchObject({ files: 2, doneFiles: 0, totalBytes: 200, sentBytes: 100, bytesPerSecond: 50, secondsLeft: 2 });
    named('a.zip').callbacks.onProgress(100);
    expect(statuses(queue)['a.zip']).toBe('finishing');
    named('a.zip').succeed(11);
    await flush();
    expect(queue.getSnapshot().batch).toMatchObject({ doneFiles: 1, sentBytes: 150 });
  });

  it('does not count the bytes a resume found on the server as speed', () => {
    const { queue, named, clock } = setUp(['a.zip']);
    queue.start();
    named('a.zip').callbacks.onResume();
    clock.now = 1;
    named('a.zip').callbacks.onProgress(80);
    clock.now = 2_001;
    named('a.zip').callbacks.onProgress(90);
    const row = queue.getSnapshot().rows[0];
    expect(row).toMatchObject({ resumed: true, sent: 90, status: 'uploading' });
    expect(queue.getSnapshot().batch?.bytesPerSecond).toBeCloseTo(5, 2);
  });

  it('unchecks what arrived and keeps failures checked, so a second press sends only the rest', async () => {
    const { queue, named, started, settled } = setUp(['a.zip', 'bad.zip', 'c.zip']);
    queue.start();
    named('a.zip').succeed(1);
    named('bad.zip').fail(refused);
    named('c.zip').fail(new UploadFailure({ message: 'Connection Error', details: 'offline' }, true));
    await flush();
    expect(settled).toHaveLength(1);
    expect(settled[0]?.map((r) => [r.path, r.status])).toEqual([
      ['a.zip', 'done'],
      ['bad.zip', 'failed'],
      ['c.zip', 'failed'],
    ]);
    const rows = queue.getSnapshot().rows;
    expect(rows.map((r) => r.checked)).toEqual([false, true, true]);
    expect(rows[1]).toMatchObject({ error: refused.reason, retryable: false });
    queue.setChecked('a.zip:100:1', true);
    expect(queue.getSnapshot().rows[0]?.checked).toBe(false);

    queue.start();
    expect(started.slice(3).map((s) => s.job.path)).toEqual(['bad.zip', 'c.zip']);
    expect(queue.getSnapshot().batch?.files).toBe(2);
  });

  it('cancels one file: the server side is terminated and the next file starts', async () => {
    const { queue, started, named } = setUp(['a.zip', 'b.zip', 'c.zip', 'd.zip', 'e.zip']);
    queue.start();
    queue.cancel('b.zip:100:1');
    expect(named('b.zip').cancelled).toBe(true);
    expect(statuses(queue)['b.zip']).toBe('cancelled');
    expect(started.map((s) => s.job.path)).toContain('e.zip');
    // A late answer of the cancelled upload changes nothing.
    named('b.zip').succeed(5);
    await flush();
    expect(statuses(queue)['b.zip']).toBe('cancelled');
  });

  it('cancels all: nothing queued starts, everything running is terminated, the batch settles once', () => {
    const { queue, started, settled } = setUp(['a.zip', 'b.zip', 'c.zip', 'd.zip', 'e.zip', 'f.zip']);
    queue.start();
    queue.cancelAll();
    expect(started).toHaveLength(4);
    expect(started.every((s) => s.cancelled)).toBe(true);
    expect(Object.values(statuses(queue))).toEqual(Array(6).fill('cancelled'));
    expect(queue.getSnapshot().active).toBe(false);
    expect(settled).toHaveLength(1);
  });

  it('lets a file whose bytes have all arrived finish even when all is cancelled', () => {
    const { queue, named } = setUp(['a.zip', 'b.zip']);
    queue.start();
    named('a.zip').callbacks.onProgress(100);
    queue.cancelAll();
    expect(named('a.zip').cancelled).toBe(false);
    expect(statuses(queue)).toEqual({ 'a.zip': 'finishing', 'b.zip': 'cancelled' });
    expect(queue.getSnapshot().active).toBe(true);
  });

  it('retries one file alone after the batch ended', async () => {
    const { queue, named, started, settled } = setUp(['a.zip', 'b.zip']);
    queue.start();
    named('a.zip').succeed(1);
    named('b.zip').fail(new UploadFailure({ message: 'Connection Error', details: 'offline' }, true));
    await flush();
    queue.retry('b.zip:100:1');
    expect(started.slice(2).map((s) => s.job.path)).toEqual(['b.zip']);
    expect(queue.getSnapshot().batch?.files).toBe(1);
    started[2]?.succeed(2);
    await flush();
    expect(settled).toHaveLength(2);
    expect(settled[1]?.map((r) => r.status)).toEqual(['done']);
  });

  it('stops sending but keeps the server side when the dialog goes away', () => {
    const { queue, started } = setUp(['a.zip']);
    queue.start();
    queue.dispose();
    expect(started[0]).toMatchObject({ abandoned: true, cancelled: false });
  });

  it('lists a file picked twice once', () => {
    const { queue } = setUp(['a.zip']);
    queue.add([kept('a.zip'), kept('b.zip')]);
    expect(queue.getSnapshot().rows.map((r) => r.path)).toEqual(['a.zip', 'b.zip']);
  });
});

describe('a folder sent as one delivery', () => {
  function setUpFolder() {
    const { transport, started, named } = controlledTransport();
    const calls: string[] = [];
    let open: (id: number) => void = () => undefined;
    const deliveries = {
      open: (projectId: number, name: string) => {
        calls.push(`open ${projectId} ${name}`);
        return new Promise<number>((resolve) => (open = resolve));
      },
      complete: (id: number) => {
        calls.push(`complete ${id}`);
        return Promise.resolve();
      },
    };
    const queue = new UploadQueue({ projectId: 7, transport, deliveries, concurrency: 2 });
    queue.add(['CD/DICOMDIR', 'CD/DICOM/IM1', 'CD/DICOM/IM2'].map((n) => kept(n)), 'CD');
    return { queue, started, named, calls, open: (id: number) => open(id) };
  }

  it('sends no file before the delivery is open, then each with its path inside the folder, a few at a time', async () => {
    const { queue, started, named, calls, open } = setUpFolder();
    queue.start();
    expect(started).toHaveLength(0);
    open(41);
    await flush();
    expect(started.map((s) => s.job.delivery)).toEqual([
      { id: 41, relativePath: 'DICOMDIR' },
      { id: 41, relativePath: 'DICOM/IM1' },
    ]);
    named('CD/DICOMDIR').succeed(0);
    await flush();
    expect(named('CD/DICOM/IM2').job.delivery).toEqual({ id: 41, relativePath: 'DICOM/IM2' });
    named('CD/DICOM/IM1').succeed(0);
    await flush();
    expect(calls).toEqual(['open 7 CD']);
    named('CD/DICOM/IM2').succeed(0);
    await flush();
    expect(calls).toEqual(['open 7 CD', 'complete 41']);
    expect(queue.getSnapshot().active).toBe(false);
  });

  it('Cancel of all stops the folder\'s uploads and never completes its delivery', async () => {
    const { queue, started, calls, open } = setUpFolder();
    queue.start();
    open(41);
    await flush();
    queue.cancelAll();
    await flush();
    expect(started.every((s) => s.cancelled)).toBe(true);
    expect(statuses(queue)).toEqual({ 'CD/DICOMDIR': 'cancelled', 'CD/DICOM/IM1': 'cancelled', 'CD/DICOM/IM2': 'cancelled' });
    expect(calls).toEqual(['open 7 CD']);
  });
});
