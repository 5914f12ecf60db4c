import type { Policy } from '@portal/deid';
import type { BundleFile } from '../api/bundle';
import { compressionOf } from '../archives/entry-source';
import { batches, type DeidOutcome } from './deid-batch';
import type { DeidBatch, DeidPackBatch, PackedMembers } from './deid-work';
import type { WorkerAnswer, WorkerRequest } from './deid.worker';

/** De-identifies files (picked files, or entries of an archive). */
export interface Deidentifier {
  run(file: Blob): Promise<DeidOutcome>;
  /**
   * A bundle's files de-identified and packed as its tar members, a batch at a time in the
   * workers: answered in their order, each batch's members one Blob (deid-work.ts packDeidBatch).
   */
  packMembers(members: readonly BundleFile[]): Promise<PackedMembers[]>;
  dispose(): void;
}

type Answer = { outcomes: DeidOutcome[] } | { packed: PackedMembers };

/**
 * Two workers: the machine keeps a core for the page and the uploads, and with four sends at a
 * time two de-identified files are usually ready before a send needs them.
 */
export const DEID_WORKERS = 2;

interface Task {
  files: readonly Blob[];
  members?: DeidPackBatch['members'];
  resolve: (answer: Answer) => void;
  reject: (error: Error) => void;
}

/**
 * A small pool of Web Workers. A waiting file is not read until a worker takes it (the worker reads
 * the Blobs itself), so what is in memory is bounded by the workers' batches, not the queue's.
 */
export function workerDeidentifier(policy: Policy, key: Uint8Array, size = DEID_WORKERS): Deidentifier {
  const waiting: Task[] = [];
  const idle: Worker[] = [];
  const busy = new Map<Worker, Task>();
  let made = 0;
  let nextId = 1;

  const make = (): Worker => {
    const worker = new Worker(new URL('./deid.worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (event: MessageEvent<WorkerAnswer>) => {
      const task = busy.get(worker);
      busy.delete(worker);
      if ('failed' in event.data) task?.reject(new Error(event.data.failed));
      else task?.resolve(event.data);
      idle.push(worker);
      next();
    };
    worker.onerror = (event) => {
      // A worker that failed to load or crashed is replaced; its files fail as a retryable error.
      event.preventDefault();
      busy.get(worker)?.reject(new Error('The de-identification of this file stopped unexpectedly; try again.'));
      busy.delete(worker);
      worker.terminate();
      made -= 1;
      next();
    };
    made += 1;
    return worker;
  };

  const next = () => {
    while (waiting.length > 0) {
      const worker = idle.pop() ?? (made < size ? make() : undefined);
      if (!worker) return;
      const task = waiting.shift() as Task;
      busy.set(worker, task);
      const request: WorkerRequest = { id: nextId++, ...batchOf(task.files, task.members, policy, key) };
      worker.postMessage(request);
    }
  };

  const runBatch = (files: readonly Blob[], members?: DeidPackBatch['members']) =>
    new Promise<Answer>((resolve, reject) => {
      waiting.push({ files, members, resolve, reject });
      next();
    });

  return {
    run: async (file) => outcomesOf(await runBatch([file]))[0] as DeidOutcome,
    packMembers: (members) => Promise.all(batches(members).map(async (batch) => packedOf(await runBatch(batch.map((m) => m.file), tarMembersOf(batch))))),
    dispose: () => {
      for (const worker of [...idle, ...busy.keys()]) worker.terminate();
      for (const task of [...waiting, ...busy.values()]) task.reject(new Error('The upload dialog was closed.'));
      waiting.length = 0;
      idle.length = 0;
      busy.clear();
    },
  };
}

function batchOf(files: readonly Blob[], members: DeidPackBatch['members'] | undefined, policy: Policy, key: Uint8Array): DeidBatch | DeidPackBatch {
  const batch = { files: files.map((file) => ({ file, compression: compressionOf(file) })), policy, key };
  return members ? { ...batch, members } : batch;
}

function tarMembersOf(members: readonly BundleFile[]): DeidPackBatch['members'] {
  return members.map(({ path, file }) => ({ path, mtimeMs: file.lastModified }));
}

function outcomesOf(answer: Answer): DeidOutcome[] {
  if (!('outcomes' in answer)) throw new Error('The de-identification answered a file with a bundle.');
  return answer.outcomes;
}

function packedOf(answer: Answer): PackedMembers {
  if (!('packed' in answer)) throw new Error('The de-identification answered a bundle with files.');
  return answer.packed;
}

/** The same work on the calling thread: for tests, and for a browser without module workers. */
export function inlineDeidentifier(policy: Policy, key: Uint8Array): Deidentifier {
  // Loaded when first used, so the engine never weighs on the dialog's own chunk.
  const work = () => import('./deid-work');
  return {
    run: async (file) => (await (await work()).runDeidBatch(batchOf([file], undefined, policy, key)))[0] as DeidOutcome,
    packMembers: async (members) => {
      const { packDeidBatch } = await work();
      return Promise.all(batches(members).map((batch) => packDeidBatch({ ...batchOf(batch.map((m) => m.file), undefined, policy, key), members: tarMembersOf(batch) })));
    },
    dispose: () => undefined,
  };
}
