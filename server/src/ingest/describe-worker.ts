// The thread behind describe-thread.ts: a small DICOM upload's SHA-256 and description, from its
// bytes, off the server's main thread. The same function as on the main thread (describe-bytes.ts),
// so the answers are the same.
import { parentPort } from 'node:worker_threads';
import { describeBytesHere } from './describe-bytes.js';
import type { DescribeAnswer, DescribeRequest } from './describe-thread.js';

const port = parentPort!;
port.on('message', ({ id, bytes, maxDicomHeaderBytes }: DescribeRequest) => {
  let answer: DescribeAnswer;
  try {
    answer = { id, ...describeBytesHere(bytes, maxDicomHeaderBytes) };
  } catch (err) {
    answer = { id, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(answer);
});
