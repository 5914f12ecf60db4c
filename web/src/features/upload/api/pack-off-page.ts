import { mapInSlices } from '../../../lib/next-task';
import { memberOf, packParts, type BundleFile, type PartsMember } from './bundle';
import type { PackAnswer, PackRequest } from './bundle.worker';
import type { BundleMaker } from './tus-upload';

let worker: Worker | null = null;
let nextId = 1;
const waiting = new Map<number, { resolve: (file: File) => void; reject: (error: Error) => void }>();

/** One worker for the page, started with the first bundle and kept: a bundle is packed in milliseconds there. */
function packer(): Worker {
  if (worker) return worker;
  const started = new Worker(new URL('./bundle.worker.ts', import.meta.url), { type: 'module' });
  started.onmessage = (event: MessageEvent<PackAnswer>) => {
    const answer = event.data;
    const waiter = waiting.get(answer.id);
    waiting.delete(answer.id);
    if ('file' in answer) waiter?.resolve(answer.file);
    else waiter?.reject(new Error(answer.error));
  };
  started.onerror = () => {
    // The worker could not start (or died): what waits fails as an upload to try again; the next bundle starts another.
    worker = null;
    started.terminate();
    waiting.forEach((w) => w.reject(new Error('The bundle could not be packed')));
    waiting.clear();
  };
  worker = started;
  return started;
}

/**
 * The tar of members given as parts, packed in a Web Worker: the page only hands over the Blobs
 * (each a handle) and gets one File back. Where there are no workers (tests in jsdom) it is packed here.
 */
export function packPartsOffPage(members: readonly PartsMember[]): Promise<File> {
  if (typeof Worker === 'undefined') return Promise.resolve().then(() => packParts(members));
  const id = nextId++;
  const answer = new Promise<File>((resolve, reject) => waiting.set(id, { resolve, reject }));
  return handOver(id, members).then(() => answer);
}

/** Members per message: each Blob handed over costs the page 0.1–0.6 ms (more for a de-identified one). */
const MEMBERS_PER_MESSAGE = 25;

/** The members in messages of a few, the page free between them once a slice has taken its time. */
async function handOver(id: number, members: readonly PartsMember[]): Promise<void> {
  const messages: PartsMember[][] = [];
  for (let at = 0; at < members.length; at += MEMBERS_PER_MESSAGE) messages.push(members.slice(at, at + MEMBERS_PER_MESSAGE));
  if (messages.length === 0) messages.push([]);
  await mapInSlices(messages, (part) => {
    const request: PackRequest = { id, members: part, last: part === messages[messages.length - 1] };
    packer().postMessage(request);
  });
}

/** A folder's small files as one tar File, packed off the page (packBundle's bytes). */
export function packBundleOffPage(files: readonly BundleFile[]): Promise<File> {
  return packPartsOffPage(files.map((entry) => ({ member: memberOf(entry), parts: [entry.file] })));
}

/** A bundle as picked: the tar of its files, packed off the page. */
export const packedBundle: BundleMaker = (members) => packBundleOffPage(members).then((file) => ({ file }));
