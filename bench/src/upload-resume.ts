// Issue 13's resume target: a tus upload cut off in the middle of a chunk (the network drops) and
// resumed from where the server has it re-sends at most one chunk. The upload goes through a relay
// (upload-proxy.ts) that counts the bytes reaching the server and cuts the connection partway.
import { streamRequest } from './upload-http.js';
import type { InputFile } from './upload-input.js';
import { startPortal, type Portal } from './upload-portal.js';
import { startRelay } from './upload-proxy.js';
import { stopChild } from './upload-process.js';
import { createTusUpload, patchChunk, readChunkBytes, readStoredFile } from './upload-tus.js';

export interface ResumeResult {
  fileBytes: number;
  chunkBytes: number;
  /** Where the server stood after the cut (HEAD's Upload-Offset). */
  resumedAt: number;
  /** Every byte that reached the server, request heads included. */
  bytesToServer: number;
}

/** `chunk` unset: the portal's (GET /upload-settings), as the web app would send. */
export async function measureResume(input: InputFile, dataDir: string, repoRoot: string, chunk?: number): Promise<ResumeResult> {
  const portal = await startPortal(dataDir, repoRoot, Math.max(input.bytes * 2, 20 * 1024 ** 3));
  const relay = await startRelay(Number(new URL(portal.base).port));
  try {
    const chunkBytes = chunk ?? (await readChunkBytes(portal));
    const viaRelay: Portal = { ...portal, base: portal.base.replace(/:\d+\//, `:${relay.port}/`) };
    const url = await createTusUpload(viaRelay, input);
    // Cut in the middle of a chunk a little past 40% of the file.
    const cutChunk = Math.floor((0.4 * input.bytes) / chunkBytes);
    relay.cutAfter(cutChunk * chunkBytes + Math.floor(chunkBytes / 2));
    let offset = 0;
    let resumedAt: number | undefined;
    let fileId: string | undefined;
    while (offset < input.bytes) {
      let answer;
      try {
        answer = await patchChunk(viaRelay, url, input, offset, Math.min(chunkBytes, input.bytes - offset));
      } catch {
        if (resumedAt !== undefined) throw new Error('the connection was lost twice');
        // What a client does after a network error: ask where the upload stands, continue from there.
        const head = await streamRequest(url, { 'tus-resumable': '1.0.0', authorization: `Bearer ${portal.token}` }, { file: input.path, fileBytes: 0 }, 'HEAD');
        if (head.status !== 200) throw new Error(`HEAD after the cut answered ${head.status}`);
        offset = resumedAt = Number(head.headers['upload-offset']);
        continue;
      }
      if (answer.status !== 204) throw new Error(`PATCH at ${offset} answered ${answer.status}: ${answer.body.slice(0, 500)}`);
      offset = Number(answer.headers['upload-offset']);
      const id = answer.headers['portal-file-id'];
      if (typeof id === 'string') fileId = id;
    }
    if (resumedAt === undefined) throw new Error('the relay never cut the upload');
    if (fileId === undefined) throw new Error('the last PATCH named no file (Portal-File-Id)');
    const file = await readStoredFile(portal, fileId);
    if (file.filesize !== input.bytes || file.sha256 !== input.sha256) {
      throw new Error(`the resumed upload stored ${JSON.stringify(file)}, expected ${input.bytes} bytes, sha256 ${input.sha256}`);
    }
    return { fileBytes: input.bytes, chunkBytes, resumedAt, bytesToServer: relay.bytesToServer() };
  } finally {
    await relay.close();
    await stopChild(portal.child);
  }
}
