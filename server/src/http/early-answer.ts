// An answer sent before the request body has arrived (401, 403, 404, 408, 413, 415 to an upload)
// must reach the client. Keeping the connection would mean reading the rest of a body that may be
// gigabytes; closing it at once makes the kernel answer the client's next bytes with a reset, and a
// client that is still sending then loses the answer it has not read yet (Node's fetch reported
// ECONNRESET instead of a 401, issue 12, item 9). So such an answer says `Connection: close`, and
// once it is written the connection is closed for sending only while what the client still sends
// is read and dropped, up to a bound, before the connection is finally closed ("lingering close",
// as HTTP/1.1 servers do).
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** Bytes of an unwanted body read and dropped after an early answer, before closing anyway. */
export const LINGER_MAX_BYTES = 8 * 1024 * 1024;
/** How long the client is given to read the answer and stop sending. */
export const LINGER_MAX_MS = 5_000;

export function registerEarlyAnswers(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply) => {
    if (!bodyStillArriving(request.raw)) return;
    reply.header('connection', 'close');
    lingerWhenClosing(request.raw);
  });
}

function bodyStillArriving(req: IncomingMessage): boolean {
  if (req.complete) return false;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Node closes a `Connection: close` response's socket with destroySoon() once the answer is
 * written; for this one socket that becomes: end our side, drain, then destroy.
 */
function lingerWhenClosing(req: IncomingMessage): void {
  const socket = req.socket;
  socket.destroySoon = () => {
    socket.end();
    const start = socket.bytesRead;
    const stop = () => {
      clearInterval(watch);
      clearTimeout(deadline);
      socket.destroy();
    };
    const watch = setInterval(() => {
      if (socket.bytesRead - start > LINGER_MAX_BYTES) stop();
    }, 20).unref();
    const deadline = setTimeout(stop, LINGER_MAX_MS).unref();
    socket.once('close', stop);
    // Whatever was reading the body (the multipart parser) has stopped; the rest is dropped here.
    req.unpipe();
    req.removeAllListeners('data');
    req.resume();
    socket.resume();
  };
}
