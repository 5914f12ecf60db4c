import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import http, { validateHeaderValue } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { parse as parseContentDisposition } from 'content-disposition';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsStorage } from '../storage/fs-storage.js';
import { newUploadKey } from '../storage/object-key.js';
import {
  attachmentHeader,
  cleanFileName,
  planDownload,
  sendDownload,
  strongEtag,
  type DownloadFacts,
} from './download-response.js';

const SHA = 'ab'.repeat(32);
const ETAG = `"${SHA}"`;
const facts: DownloadFacts = { size: 1000, sha256: SHA, contentType: 'application/dicom', fileName: 'scan.dcm' };

describe('planDownload status and headers', () => {
  it('answers 200 with the whole file and every header when there is no Range', () => {
    expect(planDownload(facts, {})).toEqual({
      status: 200,
      headers: {
        'accept-ranges': 'bytes',
        etag: ETAG,
        'cache-control': 'private, no-store',
        'content-type': 'application/dicom',
        'content-disposition': 'attachment; filename=scan.dcm',
        'x-content-type-options': 'nosniff',
        'content-length': '1000',
      },
      body: { range: null },
    });
  });

  it.each([
    ['first byte', 'bytes=0-0', 0, 0],
    ['last byte', 'bytes=999-999', 999, 999],
    ['last byte as a suffix', 'bytes=-1', 999, 999],
    ['suffix -500', 'bytes=-500', 500, 999],
    ['open 100-', 'bytes=100-', 100, 999],
    ['an end past the size, clamped', 'bytes=900-5000', 900, 999],
    ['overlapping ranges, combined', 'bytes=0-10,5-20', 0, 20],
    ['a suffix longer than the file', 'bytes=-5000', 0, 999],
    ['a suffix longer than the file beside another range', 'bytes=0-0,-5000', 0, 999],
  ])('answers 206 for %s', (_name, range, start, end) => {
    const plan = planDownload(facts, { range });
    expect(plan.status).toBe(206);
    expect(plan.body).toEqual({ range: { start, end } });
    expect(plan.headers['content-range']).toBe(`bytes ${start}-${end}/1000`);
    expect(plan.headers['content-length']).toBe(String(end - start + 1));
    expect(plan.headers['content-disposition']).toBe('attachment; filename=scan.dcm');
    expect(plan.headers.etag).toBe(ETAG);
  });

  it.each(['bytes=1000-', 'bytes=5000-6000', 'bytes=-0'])('answers 416 with bytes */size for %s', (range) => {
    const plan = planDownload(facts, { range });
    expect(plan.status).toBe(416);
    expect(plan.body).toBeNull();
    expect(plan.headers['content-range']).toBe('bytes */1000');
    expect(plan.headers['content-length']).toBeUndefined();
    expect(plan.headers['content-disposition']).toBeUndefined();
  });

  it.each(['bytes=abc', 'bytes=', 'bytes=0-1,', 'items=0-5', 'garbage', 'bytes=0-1,5-6', 'bytes=0-0,-1'])(
    'ignores %j and answers the whole file with 200 (malformed, other unit, or several ranges)',
    (range) => {
      const plan = planDownload(facts, { range });
      expect(plan.status).toBe(200);
      expect(plan.body).toEqual({ range: null });
      expect(plan.headers['content-length']).toBe('1000');
      expect(plan.headers['content-range']).toBeUndefined();
    },
  );

  it('serves a 0-byte file whole and refuses any range of it', () => {
    const empty = { ...facts, size: 0 };
    expect(planDownload(empty, {})).toMatchObject({ status: 200, headers: { 'content-length': '0' } });
    expect(planDownload(empty, { range: 'bytes=0-' })).toMatchObject({
      status: 416,
      headers: { 'content-range': 'bytes */0' },
    });
  });

  it.each([ETAG, `"other", ${ETAG}`, `W/${ETAG}`, '*'])('answers 304 without a body for If-None-Match %s', (tag) => {
    const plan = planDownload(facts, { 'if-none-match': tag, range: 'bytes=0-0' });
    expect(plan.status).toBe(304);
    expect(plan.body).toBeNull();
    expect(plan.headers.etag).toBe(ETAG);
    expect(plan.headers['content-length']).toBeUndefined();
  });

  it('answers 200 when If-None-Match names another version', () => {
    expect(planDownload(facts, { 'if-none-match': `"${'cd'.repeat(32)}"` }).status).toBe(200);
  });

  it('honours Range when If-Range carries the current strong ETag', () => {
    expect(planDownload(facts, { range: 'bytes=10-19', 'if-range': ETAG }).status).toBe(206);
  });

  it.each([`"${'cd'.repeat(32)}"`, `W/${ETAG}`, 'Sun, 22 Nov 2026 10:00:00 GMT'])(
    'sends the whole file when If-Range is %s (the partial copy may be stale)',
    (ifRange) => {
      const plan = planDownload(facts, { range: 'bytes=10-19', 'if-range': ifRange });
      expect(plan.status).toBe(200);
      expect(plan.body).toEqual({ range: null });
    },
  );

  it('treats repeated Range or If-Range headers as malformed and sends the whole file', () => {
    expect(planDownload(facts, { range: ['bytes=0-0', 'bytes=1-1'] }).status).toBe(200);
    expect(planDownload(facts, { range: 'bytes=0-0', 'if-range': [ETAG, ETAG] }).status).toBe(200);
  });

  it('matches If-None-Match sent as several headers', () => {
    expect(planDownload(facts, { 'if-none-match': ['"x"', ETAG] }).status).toBe(304);
  });

  it('makes the strong ETag from the SHA-256', () => {
    expect(strongEtag(SHA)).toBe(ETAG);
  });

  it.each(['text/html\r\nSet-Cookie: a=b', 'text/html; charset=utf-8', '', 'application'])(
    'falls back to application/octet-stream for the content type %j',
    (contentType) => {
      expect(planDownload({ ...facts, contentType }, {}).headers['content-type']).toBe('application/octet-stream');
    },
  );
});

describe('Content-Disposition for hostile and unusual names', () => {
  const names: [string, string][] = [
    ['plain', 'scan.dcm'],
    ['a quote and a second filename', 'a"; filename=evil.sh'],
    ['CR LF header injection', 'x.dcm\r\nSet-Cookie: x=1'],
    ['a bare LF', 'x\ny.zip'],
    ['unicode', 'Überweisung 日本.dcm'],
    ['semicolons and backslashes', 'a;b\\c;.zip'],
    ['NUL, tab and DEL', 'a\u0000b\tc\u007fd.tar.gz'],
    ['percent signs', '100% 50%25.zip'],
    ['path traversal', '../../etc/passwd'],
    ['emoji', '🩻 scan.dcm'],
    ['a right-to-left override', 'report\u202Emcd.exe'],
    ['only dots', '..'],
    ['empty', ''],
    ['300 characters', `${'n'.repeat(296)}.dcm`],
    ['300 CJK characters', `${'日'.repeat(296)}.dcm`],
  ];

  it.each(names)('keeps the header one well-formed attachment for %s', (_label, name) => {
    const header = attachmentHeader(name);
    // Printable ASCII only: nothing a client could read as a line break or a second header.
    expect(header).toMatch(/^[\x20-\x7e]+$/);
    expect(() => validateHeaderValue('content-disposition', header)).not.toThrow();
    const outsideQuotes = header.replace(/"(?:[^"\\]|\\.)*"/g, '""');
    expect(outsideQuotes.match(/;\s*filename=/g)).toHaveLength(1);
    expect((outsideQuotes.match(/;\s*filename\*=/g) ?? []).length).toBeLessThanOrEqual(1);
    expect(outsideQuotes.split(';')).toHaveLength(header.includes('filename*=') ? 3 : 2);
    // parse() reads as a browser does: filename* (the exact name), when present, wins.
    const parsed = parseContentDisposition(header);
    expect(parsed.type).toBe('attachment');
    expect(Object.keys(parsed.parameters)).toEqual(header.includes('filename*=') ? ['filename', 'filename*'] : ['filename']);
    expect(parsed.parameters.filename).toBe(cleanFileName(name));
  });

  it('keeps the exact unicode name in filename* and an ASCII look-alike in filename', () => {
    expect(attachmentHeader('Überweisung 日本.dcm')).toBe(
      `attachment; filename="Uberweisung __.dcm"; filename*=UTF-8''%C3%9Cberweisung%20%E6%97%A5%E6%9C%AC.dcm`,
    );
  });

  it('keeps a quote inside the name as data, never as the end of the parameter', () => {
    const header = attachmentHeader('a"; filename=evil.sh');
    expect(header).toBe(`attachment; filename="a_; filename=evil.sh"; filename*=UTF-8''a%22%3B%20filename%3Devil.sh`);
    expect(parseContentDisposition(header).parameters.filename).toBe('a"; filename=evil.sh');
  });

  it.each([
    ['x.dcm\r\nSet-Cookie: x=1', 'x.dcmSet-Cookie: x=1'],
    ['../../etc/passwd', '.._.._etc_passwd'],
    ['report\u202Emcd.exe', 'reportmcd.exe'],
    ['  spaced.zip  ', 'spaced.zip'],
    ['..', 'download'],
    ['\r\n', 'download'],
  ])('cleans %j to %j', (name, cleaned) => {
    expect(cleanFileName(name)).toBe(cleaned);
  });

  it('shortens names past 255 characters and keeps their extension', () => {
    const cleaned = cleanFileName(`${'日'.repeat(296)}.dcm`);
    expect(Array.from(cleaned)).toHaveLength(255);
    expect(cleaned.endsWith('日.dcm')).toBe(true);
  });
});

describe('sendDownload', () => {
  let dir: string;
  let storage: FsStorage;
  let app: FastifyInstance;
  let key: string;
  const bytes = randomBytes(8 * 1024 * 1024);
  const sha256 = createHash('sha256').update(bytes).digest('hex');

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'download-'));
    storage = new FsStorage(path.join(dir, 'objects'));
    key = newUploadKey();
    await storage.put(key, Readable.from([bytes]));
    app = Fastify();
    app.get<{ Params: { key: string } }>('/download/:key', (request, reply) =>
      sendDownload(reply, {
        storage,
        key: request.params.key === 'missing' ? newUploadKey() : key,
        facts: { size: bytes.length, sha256, contentType: 'application/zip', fileName: 'Überweisung 日本.zip' },
        conditions: request.headers,
      }),
    );
  });

  afterEach(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('streams the whole object with 200', async () => {
    const res = await app.inject({ url: '/download/x' });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(bytes)).toBe(true);
    expect(res.headers['content-length']).toBe(String(bytes.length));
    expect(res.headers.etag).toBe(`"${sha256}"`);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toContain("filename*=UTF-8''%C3%9Cberweisung");
  });

  it('streams one range with 206', async () => {
    const res = await app.inject({ url: '/download/x', headers: { range: 'bytes=-500' } });
    expect(res.statusCode).toBe(206);
    expect(res.rawPayload.equals(bytes.subarray(bytes.length - 500))).toBe(true);
    expect(res.headers['content-range']).toBe(`bytes ${bytes.length - 500}-${bytes.length - 1}/${bytes.length}`);
  });

  it('answers 304 with no body when the client has this version', async () => {
    const res = await app.inject({ url: '/download/x', headers: { 'if-none-match': `"${sha256}"` } });
    expect(res.statusCode).toBe(304);
    expect(res.rawPayload.length).toBe(0);
  });

  it('answers 416 with a message for a range past the end', async () => {
    const res = await app.inject({ url: '/download/x', headers: { range: `bytes=${bytes.length}-` } });
    expect(res.statusCode).toBe(416);
    expect(res.headers['content-range']).toBe(`bytes */${bytes.length}`);
    expect(res.json()).toEqual({ message: 'The requested range is not satisfiable' });
  });

  it('fails before sending a status when the bytes are missing', async () => {
    const res = await app.inject({ url: '/download/missing' });
    expect(res.statusCode).toBe(500);
    expect(res.headers['content-disposition']).toBeUndefined();
  });

  it('releases the file when the client disconnects mid-download', async () => {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    const openFds = async () => (await readdir('/proc/self/fd')).length;
    const before = await openFds();
    await new Promise<void>((resolve, reject) => {
      const req = http.get({ port, path: '/download/x' }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
    });
    for (let i = 0; i < 300 && (await openFds()) > before; i += 1) await new Promise((r) => setTimeout(r, 10));
    expect(await openFds()).toBeLessThanOrEqual(before);
  });
});
