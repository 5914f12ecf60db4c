// The baseline: the least a Node server can do with an upload, a bare `http` server piping the
// request body into `fs.createWriteStream` and fsyncing the file and its directory before it
// answers, because the portal may only answer once the bytes are durable (DESIGN §6). Plain
// JavaScript run with `node -e`: no loader, no framework, nothing but the pipe.
//
// The write stream's buffer is the one knob. The pipe measured until issue 13 had Node's default,
// 16 KiB on the Node 20 it ran on: the pipe then pauses the socket after every 64 KiB read until
// that one write is done, so reading and writing take turns. With 1 MiB they overlap; that is the
// faster simple pipe, and the baseline now (docs/performance.md, "Upload: `npm run bench:upload`",
// has the figures for both).
import { mkdir } from 'node:fs/promises';
import { cpuSeconds, mainThreadCpuSeconds, peakRssBytes, startChild, stopChild, waitForLine } from './upload-process.js';
import { streamRequest } from './upload-http.js';
import type { InputFile } from './upload-input.js';
import type { Measurement } from './upload-report.js';

const PIPE_SERVER = String.raw`
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream';
const dir = process.env.PIPE_DIR;
const highWaterMark = Number(process.env.PIPE_HIGH_WATER_MARK);
let count = 0;
function fsyncPath(p, done) {
  fs.open(p, 'r', (err, fd) => {
    if (err) return done(err);
    fs.fsync(fd, (syncErr) => fs.close(fd, () => done(syncErr)));
  });
}
const server = http.createServer((req, res) => {
  const file = path.join(dir, 'upload-' + count++ + '.bin');
  const out = fs.createWriteStream(file, { highWaterMark });
  pipeline(req, out, (err) => {
    const answer = (e) => {
      res.statusCode = e ? 500 : 201;
      res.end(e ? String(e) : JSON.stringify({ bytes: out.bytesWritten }));
    };
    if (err) return answer(err);
    fsyncPath(file, (e) => (e ? answer(e) : fsyncPath(dir, answer)));
  });
});
server.requestTimeout = 0;
server.listen(0, '127.0.0.1', () => console.log('LISTENING ' + server.address().port));
`;

/** The baseline's buffer. */
export const PIPE_HIGH_WATER_MARK = 1024 * 1024;
/** The old baseline's: Node 20's default (Node 22 raised it to 64 KiB). */
export const OLD_HIGH_WATER_MARK = 16 * 1024;

export async function measurePipe(input: InputFile, dir: string, highWaterMark: number): Promise<Measurement> {
  await mkdir(dir, { recursive: true });
  // BENCH_PIPE_NODE runs the pipe on another Node (the old figures came from Node 20).
  const child = startChild(process.env.BENCH_PIPE_NODE ?? process.execPath, ['--input-type=module', '-e', PIPE_SERVER], {
    env: { ...process.env, PIPE_DIR: dir, PIPE_HIGH_WATER_MARK: String(highWaterMark) },
  });
  try {
    const [, port] = await waitForLine(child, /LISTENING (\d+)/, 30_000);
    const cpuBefore = await cpuSeconds(child.pid);
    const mainBefore = await mainThreadCpuSeconds(child.pid);
    const answer = await streamRequest(
      `http://127.0.0.1:${port}/`,
      { 'content-type': 'application/octet-stream' },
      { file: input.path, fileBytes: input.bytes },
    );
    const serverCpuSeconds = (await cpuSeconds(child.pid)) - cpuBefore;
    const serverMainCpuSeconds = (await mainThreadCpuSeconds(child.pid)) - mainBefore;
    if (answer.status !== 201) throw new Error(`the pipe answered ${answer.status}: ${answer.body}`);
    const { bytes } = JSON.parse(answer.body) as { bytes: number };
    if (bytes !== input.bytes) throw new Error(`the pipe stored ${bytes} of ${input.bytes} bytes`);
    return {
      seconds: answer.seconds,
      bytes: input.bytes,
      peakRssBytes: await peakRssBytes(child.pid),
      serverCpuSeconds,
      serverMainCpuSeconds,
      clientCpuSeconds: answer.clientCpuSeconds,
      tailSeconds: answer.tailSeconds,
    };
  } finally {
    await stopChild(child);
  }
}
