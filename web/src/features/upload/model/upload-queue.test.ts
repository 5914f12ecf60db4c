import { describe, expect, it } from 'vitest';
import { bundleSize } from '@portal/contract';
import { memberOf } from '../api/bundle';
import { localDeliveryMemory } from '../api/delivery-memory';
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
function controlledTransport(removal: () => Promise<void> = () => Promise.resolve()) {
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
        return removal();
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
  const MiB = 1024 * 1024;
  const CD = [
    ['CD/DICOM/BIG', 2 * MiB],
    ['CD/DICOM/IM1', 300],
    ['CD/DICOM/IM2', 200],
    ['CD/DICOMDIR', 100],
  ] as const;

  function setUpFolder({ concurrency = 4, isOpen = true, removal }: { concurrency?: number; isOpen?: boolean; removal?: () => Promise<void> } = {}) {
    const { transport, started, named } = controlledTransport(removal);
    const calls: string[] = [];
    let opened: (id: number) => void = () => undefined;
    const deliveries = {
      open: (projectId: number, name: string) => {
        calls.push(`open ${projectId} ${name}`);
        return new Promise<number>((resolve) => (opened = resolve));
      },
      isOpen: (id: number) => {
        calls.push(`isOpen ${id}`);
        return Promise.resolve(isOpen);
      },
      complete: (id: number) => {
        calls.push(`complete ${id}`);
        return Promise.resolve();
      },
    };
    const queue = new UploadQueue({ projectId: 7, transport, deliveries, concurrency, deliveryMemory: localDeliveryMemory });
    queue.add(CD.map(([n, size]) => kept(n, size)), 'CD');
    const settled: UploadRow[][] = [];
    queue.onSettled((rows) => settled.push(rows));
    const bundles = () => started.filter((s) => s.job.bundle);
    const members = (s: Started | undefined) => s?.job.bundle?.members.map((m) => m.path);
    const rowOf = (path: string) => queue.getSnapshot().rows.find((r) => r.path === path) as UploadRow;
    return { queue, started, named, calls, open: (id: number) => opened(id), bundles, members, rowOf, settled };
  }

  it('packs the small files into one bundle and sends the large one alone once the delivery is open, then completes it once', async () => {
    const { queue, started, named, calls, open, bundles, members, rowOf, settled } = setUpFolder();
    queue.start();
    expect(started).toHaveLength(0);
    open(41);
    await flush();
    expect(started).toHaveLength(2);
    expect(named('CD/DICOM/BIG').job.delivery).toEqual({ id: 41, relativePath: 'DICOM/BIG' });
    const [bundle] = bundles();
    expect(members(bundle)).toEqual(['DICOM/IM1', 'DICOM/IM2', 'DICOMDIR']);
    expect(bundle?.job).toMatchObject({ path: 'bundle.tar', bundle: { deliveryId: 41 } });
    expect(bundle?.job.file.size).toBe(bundleSize(bundle?.job.bundle?.members.map(memberOf) ?? []));
    expect(statuses(queue)).toEqual({ 'CD/DICOM/BIG': 'uploading', 'CD/DICOM/IM1': 'uploading', 'CD/DICOM/IM2': 'uploading', 'CD/DICOMDIR': 'uploading' });
    expect(rowOf('CD/DICOMDIR').bundled).toBe(3);
    expect(rowOf('CD/DICOM/BIG').bundled).toBe(0);

    // Each file of the bundle shows its share of the bundle's bytes; the files still count one by one.
    bundle?.callbacks.onProgress(Math.floor((bundle.job.file.size * 1) / 2));
    expect([rowOf('CD/DICOM/IM1').sent, rowOf('CD/DICOM/IM2').sent, rowOf('CD/DICOMDIR').sent]).toEqual([150, 100, 50]);
    expect(queue.getSnapshot().batch).toMatchObject({ files: 4, doneFiles: 0, sentBytes: 300 });
    bundle?.callbacks.onProgress(bundle.job.file.size);
    expect(statuses(queue)['CD/DICOMDIR']).toBe('finishing');
    bundle?.succeed(0);
    await flush();
    expect(statuses(queue)).toMatchObject({ 'CD/DICOM/IM1': 'done', 'CD/DICOM/IM2': 'done', 'CD/DICOMDIR': 'done' });
    expect(queue.getSnapshot().batch).toMatchObject({ doneFiles: 3 });
    expect(calls).toEqual(['open 7 CD']);
    named('CD/DICOM/BIG').succeed(0);
    await flush();
    expect(calls).toEqual(['open 7 CD', 'complete 41']);
    expect(queue.getSnapshot().active).toBe(false);
    // The batch ends once, after its delivery is complete: one 'Files uploaded successfully'.
    expect(settled).toHaveLength(1);
  });

  it('leaves a file cancelled before its bundle starts out of the bundle, and completes the delivery without it', async () => {
    const { queue, started, named, calls, open, bundles, members } = setUpFolder({ concurrency: 1 });
    queue.start();
    open(41);
    await flush();
    expect(started.map((s) => s.job.path)).toEqual(['CD/DICOM/BIG']);
    queue.cancel('CD/DICOM/IM2:200:1');
    expect(statuses(queue)['CD/DICOM/IM2']).toBe('cancelled');
    named('CD/DICOM/BIG').succeed(0);
    await flush();
    expect(members(bundles()[0])).toEqual(['DICOM/IM1', 'DICOMDIR']);
    bundles()[0]?.succeed(0);
    await flush();
    expect(calls).toEqual(['open 7 CD', 'complete 41']);
    expect(statuses(queue)['CD/DICOM/IM2']).toBe('cancelled');
  });

  it('cancelling a file of a bundle on its way stops that bundle, and its other files go again in a new one', async () => {
    const { queue, open, bundles, members, calls } = setUpFolder();
    queue.start();
    open(41);
    await flush();
    const [first] = bundles();
    first?.callbacks.onProgress(1000);
    queue.cancel('CD/DICOM/IM1:300:1');
    expect(first?.cancelled).toBe(true);
    expect(statuses(queue)).toMatchObject({ 'CD/DICOM/IM1': 'cancelled', 'CD/DICOM/IM2': 'uploading', 'CD/DICOMDIR': 'uploading' });
    // A bundle's tar is packed off the page before its upload starts.
    await flush();
    const second = bundles()[1];
    expect(members(second)).toEqual(['DICOM/IM2', 'DICOMDIR']);
    // The first bundle's late answer changes nothing.
    first?.succeed(0);
    second?.succeed(0);
    await flush();
    expect(statuses(queue)).toMatchObject({ 'CD/DICOM/IM1': 'cancelled', 'CD/DICOM/IM2': 'done', 'CD/DICOMDIR': 'done' });
    expect(calls).toEqual(['open 7 CD']);
  });

  it('completes the delivery without a file cancelled on its way only once the server has removed its upload', async () => {
    let removed: () => void = () => undefined;
    const { queue, open, bundles, named, calls } = setUpFolder({ removal: () => new Promise<void>((resolve) => (removed = resolve)) });
    queue.start();
    open(41);
    await flush();
    bundles()[0]?.succeed(0);
    await flush();
    queue.cancel('CD/DICOM/BIG:2097152:1');
    expect(named('CD/DICOM/BIG').cancelled).toBe(true);
    await flush();
    // The server refuses to complete a delivery while a file of it is arriving: the removal goes first.
    expect(calls).toEqual(['open 7 CD']);
    expect(queue.getSnapshot().active).toBe(true);
    removed();
    await flush();
    expect(calls).toEqual(['open 7 CD', 'complete 41']);
    expect(queue.getSnapshot().active).toBe(false);
  });

  it('fails every file of a bundle that could not be sent, and a retry of one sends the same bundle again', async () => {
    const { queue, open, bundles, members, rowOf } = setUpFolder();
    queue.start();
    open(41);
    await flush();
    const offline = new UploadFailure({ message: 'Connection Error', details: 'The server could not be reached' }, true);
    bundles()[0]?.fail(offline);
    await flush();
    expect(rowOf('CD/DICOM/IM2')).toMatchObject({ status: 'failed', error: offline.reason, retryable: true });
    expect(rowOf('CD/DICOMDIR')).toMatchObject({ status: 'failed', error: offline.reason });
    queue.retry('CD/DICOM/IM2:200:1');
    await flush();
    // The same members make the same bundle, so the transport resumes it where the server has it.
    expect(members(bundles()[1])).toEqual(['DICOM/IM1', 'DICOM/IM2', 'DICOMDIR']);
    expect(statuses(queue)).toMatchObject({ 'CD/DICOM/IM1': 'uploading', 'CD/DICOMDIR': 'uploading' });
  });

  it('fails only the file a refusal of its bundle names, and sends the others again without it', async () => {
    const { queue, open, bundles, members, rowOf, calls } = setUpFolder();
    queue.start();
    open(41);
    await flush();
    const taken = new UploadFailure({ message: 'Invalid Data', details: 'The path "DICOM/IM2" is already taken in this delivery' }, false);
    bundles()[0]?.fail(taken);
    await flush();
    expect(rowOf('CD/DICOM/IM2')).toMatchObject({ status: 'failed', error: taken.reason, retryable: false });
    expect(members(bundles()[1])).toEqual(['DICOM/IM1', 'DICOMDIR']);
    bundles()[1]?.succeed(0);
    await flush();
    expect(statuses(queue)).toMatchObject({ 'CD/DICOM/IM1': 'done', 'CD/DICOMDIR': 'done', 'CD/DICOM/IM2': 'failed' });
    // The folder is not whole: the delivery waits rather than completing without the user's say.
    expect(calls).toEqual(['open 7 CD']);
  });

  it('fails every file of a bundle refused for a reason that names none of them', async () => {
    const { queue, open, bundles, started } = setUpFolder();
    queue.start();
    open(41);
    await flush();
    bundles()[0]?.fail(new UploadFailure({ message: 'Forbidden', details: 'Your role may only read this project' }, false));
    await flush();
    expect(statuses(queue)).toMatchObject({ 'CD/DICOM/IM1': 'failed', 'CD/DICOM/IM2': 'failed', 'CD/DICOMDIR': 'failed' });
    expect(started).toHaveLength(2);
  });

  /** A first page that opened delivery 41 and sent its bundle, reloaded while the large file is on its way. */
  async function reloadedAfterTheBundle() {
    const first = setUpFolder();
    first.queue.start();
    first.open(41);
    await flush();
    first.bundles()[0]?.succeed(0);
    await flush();
    first.queue.dispose();
    return first;
  }

  it('after a reload, the same folder goes on in the same delivery: what arrived is not sent again, the rest resumes', async () => {
    const first = await reloadedAfterTheBundle();
    expect(first.named('CD/DICOM/BIG').abandoned).toBe(true);

    const second = setUpFolder();
    second.queue.start();
    await flush();
    await flush();
    expect(second.calls).toEqual(['isOpen 41']);
    expect(second.started.map((s) => s.job.path)).toEqual(['CD/DICOM/BIG']);
    // Same delivery id, same file: the transport's resume entry matches.
    expect(second.named('CD/DICOM/BIG').job.delivery).toEqual({ id: 41, relativePath: 'DICOM/BIG' });
    expect(statuses(second.queue)).toMatchObject({ 'CD/DICOM/IM1': 'done', 'CD/DICOM/IM2': 'done', 'CD/DICOMDIR': 'done' });
    second.named('CD/DICOM/BIG').succeed(0);
    await flush();
    expect(second.calls).toEqual(['isOpen 41', 'complete 41']);

    // Completed, the delivery is forgotten: the same folder again is a new delivery.
    const third = setUpFolder();
    third.queue.start();
    await flush();
    expect(third.calls).toEqual(['open 7 CD']);
  });

  it('opens a new delivery when the remembered one is no longer open, and sends everything into it', async () => {
    await reloadedAfterTheBundle();

    const second = setUpFolder({ isOpen: false });
    second.queue.start();
    await flush();
    second.open(42);
    await flush();
    expect(second.calls).toEqual(['isOpen 41', 'open 7 CD']);
    expect(second.members(second.bundles()[0])).toEqual(['DICOM/IM1', 'DICOM/IM2', 'DICOMDIR']);
    expect(second.bundles()[0]?.job.bundle?.deliveryId).toBe(42);
  });

  it('Cancel of all stops the bundle and the large file, and never completes the delivery', async () => {
    const { queue, started, calls, open } = setUpFolder();
    queue.start();
    open(41);
    await flush();
    queue.cancelAll();
    await flush();
    expect(started.every((s) => s.cancelled)).toBe(true);
    expect(Object.values(statuses(queue))).toEqual(Array(4).fill('cancelled'));
    expect(queue.getSnapshot().rows.every((r) => r.checked)).toBe(true);
    expect(calls).toEqual(['open 7 CD']);
  });

});

describe('pausing the upload queue (the tray)', () => {
  it('pauses a file without deleting what the server holds, and going on sends it again to resume', async () => {
    const { queue, started, named, settled } = setUp(['a.zip', 'b.zip']);
    queue.start();
    named('a.zip').callbacks.onProgress(40);
    queue.pause('a.zip:100:1');
    expect(named('a.zip').abandoned).toBe(true);
    expect(named('a.zip').cancelled).toBe(false);
    expect(statuses(queue)).toEqual({ 'a.zip': 'paused', 'b.zip': 'uploading' });
    expect(queue.getSnapshot().rows.find((r) => r.path === 'a.zip')?.sent).toBe(40);

    named('b.zip').succeed(2);
    await flush();
    // A batch with only a paused file left has nothing in flight: it settles, with a.zip not arrived.
    expect(settled.at(-1)?.map((r) => r.status)).toEqual(['paused', 'done']);

    queue.retry('a.zip:100:1');
    expect(started.filter((s) => s.job.path === 'a.zip')).toHaveLength(2);
    expect(statuses(queue)['a.zip']).toBe('uploading');
    started.at(-1)?.succeed(1);
    await flush();
    expect(statuses(queue)).toEqual({ 'a.zip': 'done', 'b.zip': 'done' });
  });

  it('pauses everything at once, queued files included, and resumes them all', () => {
    const { queue, started } = setUp(['a.zip', 'b.zip', 'c.zip', 'd.zip', 'e.zip']);
    queue.start();
    queue.pauseAll();
    expect(Object.values(statuses(queue))).toEqual(['paused', 'paused', 'paused', 'paused', 'paused']);
    expect(started.every((s) => s.abandoned && !s.cancelled)).toBe(true);
    expect(queue.getSnapshot().active).toBe(false);

    queue.resumeAll();
    expect(started).toHaveLength(8);
    expect(statuses(queue)).toMatchObject({ 'a.zip': 'uploading', 'e.zip': 'queued' });
    expect(queue.getSnapshot().active).toBe(true);
  });

  it('cancels a paused file: its server part is removed, the others go on', async () => {
    const { transport, started, named } = controlledTransport();
    const latest = (name: string) => started.filter((s) => s.job.path === name).at(-1);
    const discarded: string[] = [];
    const queue = new UploadQueue({ projectId: 7, transport, concurrency: 2, discard: (job) => Promise.resolve(void discarded.push(`${job.projectId}/${job.path}`)) });
    queue.add([kept('a.zip'), kept('b.zip'), kept('c.zip')]);
    queue.start();
    named('a.zip').callbacks.onProgress(40);
    queue.pauseAll();
    expect(statuses(queue)).toEqual({ 'a.zip': 'paused', 'b.zip': 'paused', 'c.zip': 'paused' });
    queue.cancel('a.zip:100:1');
    // c.zip was paused while it waited its turn: the server has nothing of it to remove.
    queue.cancel('c.zip:100:1');
    await flush();
    expect(discarded).toEqual(['7/a.zip']);
    expect(statuses(queue)).toEqual({ 'a.zip': 'cancelled', 'b.zip': 'paused', 'c.zip': 'cancelled' });
    expect(queue.getSnapshot().rows.find((r) => r.path === 'a.zip')?.sent).toBe(0);

    queue.resumeAll();
    expect(statuses(queue)).toEqual({ 'a.zip': 'cancelled', 'b.zip': 'uploading', 'c.zip': 'cancelled' });
    latest('b.zip')?.succeed(2);
    await flush();
    expect(statuses(queue)).toEqual({ 'a.zip': 'cancelled', 'b.zip': 'done', 'c.zip': 'cancelled' });
  });

  it('ignores a pause of a file that is not on its way', async () => {
    const { queue, named } = setUp(['a.zip']);
    queue.pause('a.zip:100:1');
    expect(statuses(queue)['a.zip']).toBe('ready');
    queue.start();
    named('a.zip').succeed(1);
    await flush();
    queue.pause('a.zip:100:1');
    expect(statuses(queue)['a.zip']).toBe('done');
  });
});
