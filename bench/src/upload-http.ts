// The client side of the benchmark: request bodies are streamed from disk with a Content-Length
// computed up front, so the client's memory does not grow with the file either.
import { createReadStream } from 'node:fs';
import http from 'node:http';
import { pipeline } from 'node:stream/promises';

export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  seconds: number;
  /** CPU this (client) process used while the request ran, in seconds. */
  clientCpuSeconds: number;
  /**
   * From the body's last byte handed to the kernel to the answer, in seconds: what the server
   * spends after the body (its last reads, and making the bytes durable).
   */
  tailSeconds: number;
}

export interface StreamedBody {
  /** Sent before the file (multipart preamble and fields). */
  before?: Buffer;
  file: string;
  /** How many bytes of `file` to send, from `fileStart` (default 0). */
  fileBytes: number;
  fileStart?: number;
  /** Sent after the file (multipart closing boundary). */
  after?: Buffer;
}

export async function streamRequest(
  url: string,
  headers: Record<string, string>,
  body: StreamedBody,
  method = 'POST',
): Promise<HttpAnswer> {
  const before = body.before ?? Buffer.alloc(0);
  const after = body.after ?? Buffer.alloc(0);
  const started = process.hrtime.bigint();
  const request = http.request(url, {
    method,
    headers: { ...headers, 'content-length': String(before.length + body.fileBytes + after.length) },
  });
  const answer = collect(request, started);
  // A server may answer (413, 401) and close before taking the whole body; its answer is the result.
  const sending = pipeline(async function* () {
    if (before.length > 0) yield before;
    if (body.fileBytes > 0) {
      const start = body.fileStart ?? 0;
      yield* createReadStream(body.file, { highWaterMark: 1024 * 1024, start, end: start + body.fileBytes - 1 });
    }
    if (after.length > 0) yield after;
  }, request).catch(() => undefined);
  let sentAt: bigint | undefined;
  request.once('finish', () => (sentAt = process.hrtime.bigint()));
  const result = await answer;
  const tailSeconds = sentAt === undefined ? 0 : Number(process.hrtime.bigint() - sentAt) / 1e9;
  if (!request.writableFinished) request.destroy();
  await sending;
  return { ...result, tailSeconds };
}

export async function jsonRequest(
  url: string,
  method: string,
  payload: unknown,
  token?: string,
): Promise<{ status: number; json: unknown }> {
  const data = payload === undefined ? undefined : Buffer.from(JSON.stringify(payload));
  const request = http.request(url, {
    method,
    headers: {
      ...(data ? { 'content-type': 'application/json', 'content-length': String(data.length) } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
  });
  const answer = collect(request, process.hrtime.bigint());
  request.end(data);
  const { status, body } = await answer;
  return { status, json: body === '' ? undefined : JSON.parse(body) };
}

/** Multipart pieces around a file streamed separately: text fields first, then the file part. */
export function multipartFrame(
  fields: Record<string, string>,
  file: { field: string; name: string; contentType: string },
): { contentType: string; before: Buffer; after: Buffer } {
  const boundary = `----portal-bench-${Date.now().toString(36)}`;
  const parts = Object.entries(fields).map(
    ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  parts.push(
    `--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.name}"\r\n` +
      `Content-Type: ${file.contentType}\r\n\r\n`,
  );
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    before: Buffer.from(parts.join('')),
    after: Buffer.from(`\r\n--${boundary}--\r\n`),
  };
}

/** The answer as it arrives; the tail is the sender's to measure. */
function collect(request: http.ClientRequest, started: bigint): Promise<Omit<HttpAnswer, 'tailSeconds'>> {
  const cpuBefore = process.cpuUsage();
  return new Promise((resolve, reject) => {
    request.once('error', reject);
    request.once('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('error', reject);
      response.once('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).toString(),
          seconds: Number(process.hrtime.bigint() - started) / 1e9,
          clientCpuSeconds: cpuTotal(process.cpuUsage(cpuBefore)),
        }),
      );
    });
  });
}

const cpuTotal = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1e6;
