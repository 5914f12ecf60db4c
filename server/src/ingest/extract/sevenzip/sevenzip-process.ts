// The 7-Zip process: a short-lived child of the job's process (sevenzip-client.ts) that runs 7-Zip
// in a thread of its own and relays its messages. 7-Zip's WebAssembly memory, its compiled code and
// what the C allocator keeps after a run (~50–60 MB for a 7z of 100,000 entries, never returned
// while the process lives) are then given back to the system when the job ends, not kept by the
// server for the rest of its life (docs/processing.md, "Responsiveness").
import { compiledSevenZip, spawnSevenZipThread } from './sevenzip-thread.js';
import type { ProcessMessage, WorkerReply } from './sevenzip-protocol.js';

export function relayToThread(): void {
  const send = process.send?.bind(process);
  if (send === undefined) throw new Error('the 7-Zip process must be started with an IPC channel');
  const thread = spawnSevenZipThread();
  // Each running request's credit, shared with the thread, raised as the job's messages arrive.
  const credits = new Map<number, Int32Array>();
  let wasmSent: Promise<void> | null = null;

  thread.on('message', (reply: WorkerReply) => {
    if (!('settled' in reply)) credits.delete(reply.id);
    send(reply);
  });
  // The job sees the exit (its pending requests fail); nothing here could answer them.
  thread.on('error', (error) => {
    console.error(error);
    process.exit(1);
  });
  thread.on('exit', (code) => process.exit(code === 0 ? 1 : code));
  // The job's process is gone or closed the channel: nobody waits for 7-Zip any longer.
  process.on('disconnect', () => process.exit(0));

  process.on('message', (message: ProcessMessage) => {
    if ('creditOf' in message) {
      const credit = credits.get(message.creditOf);
      if (credit === undefined) return;
      Atomics.store(credit, 0, message.allowed);
      Atomics.notify(credit, 0);
      return;
    }
    const { request, creditFrom } = message;
    if (creditFrom !== null && request.op === 'extract') {
      request.credit = new Int32Array(new SharedArrayBuffer(4));
      Atomics.store(request.credit, 0, creditFrom);
      credits.set(request.id, request.credit);
    }
    wasmSent ??= compiledSevenZip().then((wasm) => thread.postMessage({ wasm }));
    wasmSent.then(
      () => thread.postMessage(request),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
}
