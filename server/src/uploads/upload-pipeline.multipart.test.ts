// storeUpload fed by the real @fastify/multipart file stream over a real socket: the cases where
// the parser, not a hand-made stream, decides how a file ends.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import { FsStorage } from '../storage/fs-storage.js';
import { newUploadKey } from '../storage/object-key.js';
import { storeUpload, type StoredUpload } from './upload-pipeline.js';

const MULTIPART_FILE_LIMIT = 3 * 1024 * 1024;
const MAX_BYTES = 2 * 1024 * 1024;

let dir: string;
let root: string;
let app: FastifyInstance;
let port: number;
let outcomes: Promise<StoredUpload>[];

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'upload-multipart-'));
  root = path.join(dir, 'objects');
  const storage = new FsStorage(root);
  outcomes = [];
  app = Fastify();
  await app.register(multipart, { limits: { fileSize: MULTIPART_FILE_LIMIT, files: 1 } });
  app.setErrorHandler((error, _request, reply) =>
    reply
      .status(error instanceof AppError ? error.status : 500)
      .send({ message: error instanceof Error ? error.message : String(error) }),
  );
  app.post('/upload', async (request, reply) => {
    const maxBytes = Number(request.headers['x-max-bytes'] ?? MAX_BYTES);
    for await (const part of request.parts()) {
      if (part.type !== 'file') continue;
      const outcome = storeUpload({ source: part.file, storage, key: newUploadKey(), maxBytes });
      outcomes.push(outcome);
      const stored = await outcome;
      return reply.status(201).send({ size: stored.size, sha256: stored.sha256 });
    }
    return reply.status(400).send({ message: 'no file' });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as AddressInfo).port;
});

afterEach(async () => {
  await app.close();
  await rm(dir, { recursive: true, force: true });
});

async function leftovers(): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => e.name);
}

function multipartBody(): { head: Buffer; tail: Buffer; boundary: string } {
  const boundary = `----bench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="studypetitionid"\r\n\r\n1\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.dcm"\r\n` +
      `Content-Type: application/octet-stream\r\n\r\n`,
  );
  return { head, tail: Buffer.from(`\r\n--${boundary}--\r\n`), boundary };
}

function send(bytes: Buffer, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const { head, tail, boundary } = multipartBody();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        port,
        method: 'POST',
        path: '/upload',
        headers: {
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': head.length + bytes.length + tail.length,
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString() }));
      },
    );
    // The server may answer 413 and close before the whole body is written.
    req.on('error', reject);
    req.write(head);
    req.write(bytes);
    req.end(tail);
  });
}

describe('storeUpload behind @fastify/multipart', () => {
  it('stores an upload with its checksum', async () => {
    const bytes = randomBytes(1024 * 1024 + 7);
    const res = await send(bytes);
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body)).toEqual({ size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    expect(await leftovers()).toHaveLength(1);
  });

  it('answers 413 over maxBytes and keeps nothing', async () => {
    const res = await send(randomBytes(MAX_BYTES + 1));
    expect(res.status).toBe(413);
    await expect(outcomes[0]).rejects.toMatchObject({ status: 413 });
    expect(await leftovers()).toEqual([]);
  });

  it("answers 413 when the parser's own fileSize limit truncates the file, and keeps nothing", async () => {
    const res = await send(randomBytes(MULTIPART_FILE_LIMIT + 1000), { 'x-max-bytes': String(1e9) });
    expect(res.status).toBe(413);
    expect(await leftovers()).toEqual([]);
  });

  it('keeps nothing when the client disconnects mid-file', async () => {
    const bytes = randomBytes(1024 * 1024);
    const { head, boundary } = multipartBody();
    const req = http.request({
      port,
      method: 'POST',
      path: '/upload',
      headers: {
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': head.length + 10 * bytes.length,
        'x-max-bytes': String(1e9),
      },
    });
    req.on('error', () => undefined);
    req.write(head);
    req.write(bytes);
    for (let i = 0; i < 200 && outcomes.length === 0; i += 1) await new Promise((r) => setTimeout(r, 10));
    expect(outcomes).toHaveLength(1);
    req.destroy();
    await expect(outcomes[0]).rejects.toMatchObject({ status: 400, name: 'UploadInterruptedError' });
    expect(await leftovers()).toEqual([]);
  });
});
