// The parts of a STOW-RS body (PS3.18 §10.5, `multipart/related; type="application/dicom"`), read
// as they arrive. An own small boundary scanner rather than a library: the registry's readers of
// multipart/related either hold each part in memory (@remix-run/multipart-parser, shared/DEPENDENCIES.md)
// or are not a dependency here (dicer, @fastify/busboy's Dicer copy is internal), and a part of
// 500 MB must pass with at most one chunk plus one boundary held at any time.

export class MalformedBodyError extends Error {}

/** The boundary of a STOW-RS request, or why its Content-Type is not one (415). */
export function stowBoundary(contentType: string | undefined): { boundary: string } | { refused: string } {
  const refused = {
    refused: 'STOW-RS takes a body of type multipart/related; type="application/dicom" with a boundary; send the DICOM files as parts of such a body',
  };
  if (!contentType) return refused;
  const [media, ...params] = contentType.split(';');
  if (media?.trim().toLowerCase() !== 'multipart/related') return refused;
  const values = new Map<string, string>();
  for (const param of params) {
    const at = param.indexOf('=');
    if (at < 0) continue;
    const value = param.slice(at + 1).trim();
    values.set(param.slice(0, at).trim().toLowerCase(), value.startsWith('"') && value.endsWith('"') && value.length >= 2 ? value.slice(1, -1) : value);
  }
  const type = values.get('type');
  if (type !== undefined && type.toLowerCase() !== 'application/dicom') return refused;
  const boundary = values.get('boundary');
  if (!boundary || boundary.length > 70) return refused;
  return { boundary };
}

export interface Part {
  headers: Map<string, string>;
  /** The part's bytes in order; read it to its end before asking for the next part. */
  body: AsyncIterable<Buffer>;
}

const CRLF = Buffer.from('\r\n');
const CRLF2 = Buffer.from('\r\n\r\n');
/** A part's headers may take at most this many bytes. */
const MAX_HEADER_BYTES = 16 * 1024;

/**
 * The parts of `source`, one at a time. Holds at most one chunk of `source` plus the delimiter's
 * length (and a part's headers) in memory, whatever the size of a part.
 */
export async function* readParts(source: AsyncIterable<Buffer | string>, boundary: string): AsyncGenerator<Part> {
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const iterator = source[Symbol.asyncIterator]();
  // A leading CRLF lets the first delimiter match like the others.
  let buffered: Buffer = Buffer.from('\r\n');
  let ended = false;
  const more = async (): Promise<boolean> => {
    if (ended) return false;
    const next = await iterator.next();
    if (next.done) { ended = true; return false; }
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    return true;
  };
  // The preamble, up to the first delimiter.
  for (;;) {
    const at = buffered.indexOf(delimiter);
    if (at >= 0) { buffered = buffered.subarray(at + delimiter.length); break; }
    buffered = buffered.subarray(Math.max(0, buffered.length - delimiter.length + 1));
    if (!(await more())) throw new MalformedBodyError('no boundary');
  }
  for (;;) {
    // After a delimiter: "--" closes the body, else transport padding and CRLF open a part.
    while (buffered.length < 2) if (!(await more())) throw new MalformedBodyError('cut short after a boundary');
    if (buffered[0] === 0x2d && buffered[1] === 0x2d) return;
    let eol: number;
    while ((eol = buffered.indexOf('\r\n')) < 0) {
      if (buffered.length > 256 || !(await more())) throw new MalformedBodyError('no line end after a boundary');
    }
    buffered = buffered.subarray(eol + 2);
    // The headers, up to an empty line (or none at all: the part then starts with CRLF).
    let end: number;
    while ((end = Buffer.concat([CRLF, buffered]).indexOf(CRLF2)) < 0) {
      if (buffered.length > MAX_HEADER_BYTES || !(await more())) throw new MalformedBodyError('part headers never end');
    }
    const withCrlf = Buffer.concat([CRLF, buffered]);
    const headerText = end > 2 ? withCrlf.subarray(2, end).toString('latin1') : '';
    buffered = withCrlf.subarray(end + 4);
    const headers = new Map<string, string>();
    for (const line of headerText.split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    let done = false;
    const body = async function* (): AsyncGenerator<Buffer> {
      for (;;) {
        const at = buffered.indexOf(delimiter);
        if (at >= 0) {
          if (at > 0) yield buffered.subarray(0, at);
          buffered = buffered.subarray(at + delimiter.length);
          done = true;
          return;
        }
        // All but what could be the start of a delimiter is the part's.
        const safe = buffered.length - delimiter.length + 1;
        if (safe > 0) {
          const out = buffered.subarray(0, safe);
          buffered = buffered.subarray(safe);
          yield out;
        }
        if (!(await more())) throw new MalformedBodyError('cut short inside a part');
      }
    };
    yield { headers, body: body() };
    if (!done) throw new MalformedBodyError('a part was not read to its end');
  }
}

/** The most bytes readParts holds at once for chunks of `chunkBytes` (the bound its test asserts). */
export function heldBound(chunkBytes: number, boundary: string): number {
  return chunkBytes + boundary.length + 4 + MAX_HEADER_BYTES;
}
