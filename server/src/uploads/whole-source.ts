// A small upload's file part read whole into memory, with the answers storeUpload gives for a
// streamed one: 413 past the size limit (or when the multipart parser cut the file at its own
// limit), 400 when the part ends before the file does, and the abort signal's reason (the client
// went away, or stalled) as it is.
import type { Readable } from 'node:stream';
import { AppError } from '../errors/app-error.js';
import { UploadInterruptedError, UploadTooLargeError } from './upload-pipeline.js';

export function readWholeSource(source: Readable & { truncated?: boolean }, maxBytes: number, signal: AbortSignal | undefined): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const settle = (error: Error | undefined, bytes?: Buffer) => {
      if (settled) return;
      settled = true;
      source.off('data', onData);
      source.off('end', onEnd);
      source.off('error', onGone);
      source.off('close', onGone);
      signal?.removeEventListener('abort', onAbort);
      if (error === undefined) return resolve(bytes!);
      // Not left paused holding its request's socket, as a failed put destroys its body.
      source.destroy();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBytes) return settle(new UploadTooLargeError(maxBytes));
      chunks.push(chunk);
    };
    const onEnd = () => {
      if (source.truncated === true) return settle(new UploadTooLargeError(maxBytes));
      settle(undefined, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
    };
    // An answer of our own passes as it is; anything else the source failed with is the client's doing.
    const onGone = (err?: unknown) => settle(err instanceof AppError ? err : new UploadInterruptedError(err === undefined ? undefined : { cause: err }));
    // The reason is what the caller aborted with (an AppError): callers match on it.
    const onAbort = () => settle(signal!.reason instanceof Error ? signal!.reason : new UploadInterruptedError());
    if (signal?.aborted) return onAbort();
    // The parser may have failed the part (a body cut short) while the caller was still checking
    // the project: its 'error' and 'close' are gone already and would never come again.
    if (source.destroyed) return onGone(source.errored ?? undefined);
    source.on('data', onData);
    source.once('end', onEnd);
    source.once('error', onGone);
    source.once('close', onGone);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
