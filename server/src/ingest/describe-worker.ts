// The thread behind describe-thread.ts: a small DICOM upload's SHA-256 and description, from its
// bytes, off the server's main thread. The same functions as on the main thread, so the answers are
// the same.
import { createHash } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import { describeStoredBytes } from './stored-file.js';
import type { DescribeAnswer, DescribeRequest } from './describe-thread.js';

const port = parentPort!;
port.on('message', ({ id, bytes, maxDicomHeaderBytes }: DescribeRequest) => {
  let answer: DescribeAnswer;
  try {
    answer = { id, sha256: createHash('sha256').update(bytes).digest('hex'), described: describeStoredBytes(bytes, maxDicomHeaderBytes) };
  } catch (err) {
    answer = { id, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(answer);
});
