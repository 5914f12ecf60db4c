// The body of a tus request, as tus.routes.ts hands it to @tus/server, and the PATCH handler that
// writes it into the store as the Node stream it is.
//
// @tus/server 2 takes every request as a web Request and turns the body back into a Node stream
// (Readable.fromWeb) before its store writes it, so every 64 KiB piece of an upload crossed a web
// stream twice and two more Node streams on the way (~0.2 s of CPU per GiB on the main thread and
// ~0.5 s in all; docs/performance.md, "tus `PATCH` bodies stay Node streams"). The PATCH handler
// below is tus's own (its header checks, lock, offset and length rules, expiry and answers); only
// `writeToStore`, the step that moves the body into the store, takes the Node stream the web body
// stands for, and applies tus's limit and abort rules to it itself. A body the route did not make,
// or any other handler (a creation with bytes), still goes the library's way, through the web
// stream.
import type { IncomingMessage } from 'node:http';
import { Transform, type TransformCallback } from 'node:stream';
import type { Server } from '@tus/server';
import { ERRORS, type CancellationContext, type DataStore, type Upload } from '@tus/utils';

/** Whatever is fed every byte handed to tus, in order (the upload's running SHA-256). */
export interface BodyTap {
  /** A promise when the next chunk must wait for it. */
  update(chunk: Buffer): Promise<void> | undefined;
}

type PatchHandler = Server['handlers']['PATCH'];

const bodies = new WeakMap<ReadableStream<Uint8Array>, TusRequestBody>();

/**
 * The request body for tus, watched for stalls: a body that sends nothing for the idle timeout is
 * ended where it is, so tus keeps what arrived, and the answer becomes 408. A client that goes
 * away fails the body, which tus also survives, keeping what it wrote. Every byte is fed to `tap`
 * on its way.
 */
export class TusRequestBody extends Transform {
  /** The body as tus's Request carries it; read only when the library's own path takes it. */
  readonly web: ReadableStream<Uint8Array>;
  #limit = Number.POSITIVE_INFINITY;
  #received = 0;
  #stalled = false;
  #failure: 'client' | 'limit' | undefined;
  readonly #release: (serverTimeout: number) => void;

  constructor(
    private readonly raw: IncomingMessage,
    idleTimeoutMs: number,
    private readonly tap: BodyTap | undefined,
  ) {
    super();
    const onIdle = () => {
      this.#stalled = true;
      this.stop();
    };
    const onClose = () => {
      if (raw.complete || this.#stalled) return;
      this.#failure ??= 'client';
      this.destroy(new Error('the client closed the connection before the end of the body'));
    };
    // Once the body is complete the timeout is lifted: finishing a large upload sends nothing for a while.
    const onEnd = () => raw.socket?.setTimeout(0);
    raw.setTimeout(idleTimeoutMs, onIdle);
    raw.once('close', onClose);
    raw.once('end', onEnd);
    // The failure reaches whoever reads the body (and failure() keeps why). A body no one reads
    // yet, such as one whose PATCH waits for the upload's lock, must not throw its error into the
    // process when its client leaves: unheard, that would take the server down.
    this.on('error', () => undefined);
    raw.pipe(this);
    this.#release = (serverTimeout) => {
      raw.off('timeout', onIdle);
      raw.off('close', onClose);
      raw.off('end', onEnd);
      raw.socket?.setTimeout(serverTimeout);
    };
    // Not Readable.toWeb: it copies every chunk. ReadableStream.from passes them as they are, and
    // pulls nothing until read.
    this.web = ReadableStream.from<Uint8Array>(this);
    bodies.set(this.web, this);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.#received += chunk.length;
    if (this.#received > this.#limit) {
      this.#failure = 'limit';
      return done(new Error('the body is longer than the upload has room for'));
    }
    const tapped = this.tap?.update(chunk);
    if (tapped === undefined) return done(null, chunk);
    tapped.then(() => done(null, chunk), done);
  }

  /** The body stopped for the idle timeout, and what arrived before was kept. */
  stalled(): boolean {
    return this.#stalled;
  }

  /** Ends the body where it is, keeping what arrived: the request itself is left alone. */
  stop(): void {
    this.raw.unpipe(this);
    this.end();
  }

  /** Puts the server-wide idle timeout back on the connection, once tus has answered. */
  release(serverTimeout: number): void {
    this.#release(serverTimeout);
  }

  /** More bytes than `maxBytes` fail the body, as tus's own StreamLimiter does. */
  limitTo(maxBytes: number): void {
    this.#limit = maxBytes;
  }

  /** Why the body failed, when it did: the client went away, or sent more than the limit. */
  failure(): 'client' | 'limit' | undefined {
    return this.#failure;
  }

  static of(web: ReadableStream<unknown> | null): TusRequestBody | undefined {
    return web === null ? undefined : bodies.get(web as ReadableStream<Uint8Array>);
  }
}

/** Replaces tus's PATCH handler by one that writes bodies made by TusRequestBody as Node streams. */
export function writePatchBodiesDirectly(tus: Server): void {
  // The handler classes are not exported; the one tus made is extended, so its rules stay the library's.
  const TusPatchHandler = tus.handlers.PATCH.constructor as new (store: DataStore, options: Server['options']) => PatchHandler;
  class DirectPatchHandler extends TusPatchHandler {
    protected override async writeToStore(
      webStream: ReadableStream | null,
      upload: Upload,
      maxBodySize: number,
      context: CancellationContext,
    ): Promise<number> {
      const body = TusRequestBody.of(webStream);
      if (body === undefined) return super.writeToStore(webStream, upload, maxBodySize, context);
      // As BaseHandler.writeToStore does with the web body: an abort (another request for this
      // upload asking for its lock) ends the body gracefully, so the store keeps what it wrote.
      // tus answers its own error objects (status and body), not Error instances.
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      if (context.signal.aborted) throw ERRORS.ABORTED;
      body.limitTo(maxBodySize);
      const onAbort = () => body.stop();
      context.signal.addEventListener('abort', onAbort, { once: true });
      try {
        return await this.store.write(body, upload.id, upload.offset);
      } catch (error) {
        const failure = body.failure();
        const aborted = failure === 'client' || (error instanceof Error && error.name === 'AbortError');
        throw failure === 'limit' ? ERRORS.ERR_MAX_SIZE_EXCEEDED : aborted ? ERRORS.ABORTED : error;
      } finally {
        context.signal.removeEventListener('abort', onAbort);
      }
    }
  }
  tus.handlers.PATCH = new DirectPatchHandler(tus.datastore, tus.options);
}
