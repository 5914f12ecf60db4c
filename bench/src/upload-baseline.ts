// The baseline: the least a Node server can do with an upload, a bare http server piping the
// request body into a file on the same disk. By default it also fsyncs before answering, because
// the portal may only answer once the bytes are durable (DESIGN §6); without that the baseline
// would be timing the page cache against the portal timing the disk.
import { mkdir } from 'node:fs/promises';
import { peakRssBytes, startChild, stopChild, waitForLine } from './upload-process.js';
import { streamRequest } from './upload-http.js';
import type { InputFile } from './upload-input.js';
import type { Measurement } from './upload-report.js';

// Plain JavaScript run with `node -e`: no loader, no framework, nothing but the pipe.
const BASELINE_SERVER = String.raw`
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream';
const dir = process.env.BASELINE_DIR;
const durable = process.env.BASELINE_FSYNC === '1';
let count = 0;
function fsyncPath(p, done) {
  fs.open(p, 'r', (err, fd) => {
    if (err) return done(err);
    fs.fsync(fd, (syncErr) => fs.close(fd, () => done(syncErr)));
  });
}
const server = http.createServer((req, res) => {
  const file = path.join(dir, 'upload-' + count++ + '.bin');
  const out = fs.createWriteStream(file);
  pipeline(req, out, (err) => {
    const answer = (e) => {
      res.statusCode = e ? 500 : 201;
      res.end(e ? String(e) : JSON.stringify({ bytes: out.bytesWritten }));
    };
    if (err || !durable) return answer(err);
    fsyncPath(file, (e) => (e ? answer(e) : fsyncPath(dir, answer)));
  });
});
server.requestTimeout = 0;
server.listen(0, '127.0.0.1', () => console.log('LISTENING ' + server.address().port));
`;

export async function measureBaseline(input: InputFile, dir: string, durable: boolean): Promise<Measurement> {
  await mkdir(dir, { recursive: true });
  const child = startChild(process.execPath, ['--input-type=module', '-e', BASELINE_SERVER], {
    env: { ...process.env, BASELINE_DIR: dir, BASELINE_FSYNC: durable ? '1' : '0' },
  });
  try {
    const [, port] = await waitForLine(child, /LISTENING (\d+)/, 30_000);
    const answer = await streamRequest(
      `http://127.0.0.1:${port}/`,
      { 'content-type': 'application/octet-stream' },
      { file: input.path, fileBytes: input.bytes },
    );
    if (answer.status !== 201) throw new Error(`baseline answered ${answer.status}: ${answer.body}`);
    const { bytes } = JSON.parse(answer.body) as { bytes: number };
    if (bytes !== input.bytes) throw new Error(`baseline stored ${bytes} of ${input.bytes} bytes`);
    return { seconds: answer.seconds, bytes: input.bytes, peakRssBytes: await peakRssBytes(child.pid) };
  } finally {
    await stopChild(child);
  }
}
