// clamd's INSTREAM protocol, written here rather than taken from npm (docs/dependencies.md): the
// command, then each chunk behind its length as 4 big-endian bytes, a zero length to end, and one
// reply line: "stream: OK", "stream: <signature> FOUND" or "<what went wrong> ERROR".
import net from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export type ScanVerdict = { status: 'clean' } | { status: 'infected'; signature: string } | { status: 'not_scanned'; reason: string };

/** clamd could not be reached or gave no answer: the job retries, the file waits for its scan. */
export class ScannerUnavailable extends Error {}

export interface ClamdAddress {
  socket?: string | undefined;
  host?: string | undefined;
  port: number;
  timeoutMs: number;
}

/** A source is opened only once clamd has accepted the connection, so a scanner that is down reads nothing. */
export type ScanSource = () => Readable;

export interface VirusScanner {
  scan(source: ScanSource): Promise<ScanVerdict>;
}

/**
 * With `AlertExceedsMax yes` (docs/deployment.md) clamd names what it did not read in full with a
 * signature of this family instead of answering OK: the file was not scanned, not found clean.
 */
const LIMIT_EXCEEDED = /^Heuristics\.Limits\.Exceeded/;

export const NOT_SCANNED_TOO_LARGE = 'Not scanned: it is larger than the virus scanner is set to read. Ask your administrator to raise the scanner’s limits.';
export const NOT_SCANNED_REFUSED = 'Not scanned: the virus scanner could not read it. Ask your administrator to look at the scanner’s log.';

export function parseReply(reply: string): ScanVerdict {
  const text = reply.replace(/\0/g, '').trim();
  if (text === 'stream: OK') return { status: 'clean' };
  const found = /^stream: (.+) FOUND$/.exec(text);
  if (found) {
    const signature = found[1]!;
    if (LIMIT_EXCEEDED.test(signature)) return { status: 'not_scanned', reason: NOT_SCANNED_TOO_LARGE };
    return { status: 'infected', signature };
  }
  if (/size limit exceeded/i.test(text)) return { status: 'not_scanned', reason: NOT_SCANNED_TOO_LARGE };
  if (text.endsWith('ERROR')) return { status: 'not_scanned', reason: NOT_SCANNED_REFUSED };
  throw new ScannerUnavailable(`clamd answered something unexpected (${text.slice(0, 80)})`);
}

async function* frames(source: Readable, onSourceError: (err: unknown) => void): AsyncGenerator<Buffer> {
  yield Buffer.from('zINSTREAM\0');
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      const length = Buffer.alloc(4);
      length.writeUInt32BE(chunk.length);
      yield length;
      yield chunk;
    }
  } catch (err) {
    onSourceError(err);
    throw err;
  }
  yield Buffer.alloc(4);
}

export class ClamdScanner implements VirusScanner {
  constructor(private readonly address: ClamdAddress) {}

  scan(source: ScanSource): Promise<ScanVerdict> {
    const { socket: path, host, port, timeoutMs } = this.address;
    return new Promise((resolve, reject) => {
      const socket = path !== undefined ? net.createConnection({ path }) : net.createConnection({ host: host ?? '127.0.0.1', port });
      socket.setTimeout(timeoutMs);
      const replies: Buffer[] = [];
      let failure: unknown = null;
      let sourceFailure: unknown = null;
      socket.on('data', (data: Buffer) => replies.push(data));
      socket.on('timeout', () => {
        failure ??= new ScannerUnavailable('clamd did not answer in time');
        socket.destroy();
      });
      socket.on('error', (err) => {
        failure ??= err;
      });
      socket.on('connect', () => {
        // clamd may answer and close before all is sent (its stream limit): the answer then stands.
        pipeline(
          Readable.from(
            frames(source(), (err) => {
              sourceFailure = err;
            }),
          ),
          socket,
        ).catch((err: unknown) => {
          failure ??= err;
          socket.destroy();
        });
      });
      // Settled once, when the connection is gone: by then any answer clamd gave has arrived.
      socket.on('close', () => {
        if (sourceFailure !== null) return reject(sourceFailure instanceof Error ? sourceFailure : new Error('the bytes to scan could not be read'));
        const reply = Buffer.concat(replies).toString('utf8');
        if (reply.trim() !== '') {
          try {
            return resolve(parseReply(reply));
          } catch (err) {
            return reject(err instanceof Error ? err : new Error(String(err)));
          }
        }
        reject(new ScannerUnavailable('the virus scanner (clamd) could not be reached or gave no answer', { cause: failure }));
      });
    });
  }
}
