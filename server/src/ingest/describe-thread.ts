// A small DICOM upload read whole (uploads/uploads.service.ts) is hashed and its header described on one
// thread kept for the life of the process, while the main thread stores its bytes and serves the
// other requests. Many small single uploads keep the main thread busy (docs/performance.md, "Single
// uploads read whole"): the header's parse was about a twelfth of its time, and with the garbage it
// leaves a tenth; a message each way costs a fraction of that.
import { Worker } from 'node:worker_threads';
import { describeBytesHere, type DescribedBytes } from './describe-bytes.js';
import { tsxBootstrap } from './extract/sevenzip/sevenzip-thread.js';

export interface DescribeRequest {
  id: number;
  bytes: Uint8Array;
  maxDicomHeaderBytes: number;
}

export type DescribeAnswer = ({ id: number } & DescribedBytes) | { id: number; error: string };

/** Its garbage dies within one message: a small young generation is collected often and cheaply. */
const resourceLimits = { maxYoungGenerationSizeMb: 8 };

interface Waiting {
  resolve(answer: DescribedBytes): void;
  reject(err: unknown): void;
  bytes: Uint8Array;
  max: number;
}

/** What the thread could not answer, answered here: the same error, if any, as without the thread. */
function hereInstead(waiting: Waiting): void {
  try {
    waiting.resolve(describeBytesHere(waiting.bytes, waiting.max));
  } catch (err) {
    waiting.reject(err);
  }
}

class DescribeThread {
  #worker: Worker | undefined;
  #next = 0;
  readonly #waiting = new Map<number, Waiting>();

  describe(bytes: Uint8Array, maxDicomHeaderBytes: number): Promise<DescribedBytes> {
    const worker = this.#started();
    if (worker === undefined) return Promise.resolve(describeBytesHere(bytes, maxDicomHeaderBytes));
    const id = (this.#next += 1);
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject, bytes, max: maxDicomHeaderBytes });
      // A view into a larger buffer (a socket's read) would send all of that buffer along.
      const sent = bytes.byteLength * 2 < bytes.buffer.byteLength ? bytes.slice() : bytes;
      try {
        worker.postMessage({ id, bytes: sent, maxDicomHeaderBytes } satisfies DescribeRequest);
      } catch {
        this.#waiting.delete(id);
        hereInstead({ resolve, reject, bytes, max: maxDicomHeaderBytes });
      }
    });
  }

  #started(): Worker | undefined {
    if (this.#worker !== undefined) return this.#worker;
    let worker: Worker;
    try {
      worker = spawn();
    } catch {
      return undefined;
    }
    // Never what keeps the process alive: the requests waiting for it have their sockets open.
    worker.unref();
    worker.on('message', (answer: DescribeAnswer) => {
      const waiting = this.#waiting.get(answer.id);
      if (waiting === undefined) return;
      this.#waiting.delete(answer.id);
      if ('error' in answer) hereInstead(waiting);
      else waiting.resolve({ sha256: answer.sha256, described: answer.described });
    });
    // A thread that failed or ended takes no more work; what it held is described here, and the
    // next upload starts another.
    const gone = () => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      for (const [id, waiting] of this.#waiting) {
        this.#waiting.delete(id);
        hereInstead(waiting);
      }
    };
    worker.on('error', gone);
    worker.on('exit', gone);
    this.#worker = worker;
    return worker;
  }
}

/** The worker module, beside this one: TypeScript under tsx or vitest, JavaScript in the bundle. */
function spawn(): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./describe-worker.js', import.meta.url), { resourceLimits });
  return new Worker(tsxBootstrap(new URL('./describe-worker.ts', import.meta.url)), { eval: true, resourceLimits });
}

/** One thread per process, started by the first small DICOM upload. */
const thread = new DescribeThread();

/** A small file's SHA-256 and description (DICOM header included), computed off the main thread. */
export function describeBytesOffThread(bytes: Uint8Array, maxDicomHeaderBytes: number): Promise<DescribedBytes> {
  return thread.describe(bytes, maxDicomHeaderBytes);
}
