import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { storeSession, TOKEN_KEY } from '../../../lib/storage';
import { fakeTusServer, type SettingsReply } from '../testing/fake-tus-server';
import { defaultOptions } from 'tus-js-client';
import { packBundle, type BundleFile } from './bundle';
import { deliveryApi } from './deliveries';
import { createTusTransport, DEFAULT_CHUNK_BYTES, discardResumable, fingerprintOf, pruneExpiredResumes, RESUME_MAX_AGE_MS, UploadFailure, WITH_CREATION_MAX_BYTES, type UploadJob } from './tus-upload';

const CHUNK = 10;
const transport = createTusTransport({ chunkSize: CHUNK, retryDelays: [0, 0, 0] });
const noCallbacks = { onProgress: () => undefined, onResume: () => undefined };

function signIn(userId = 1, token = 'u1-a') {
  storeSession(token, { id: userId, username: 'ann', firstname: 'Ann', lastname: 'Lee', role: 1, company_id: 1, company: null });
}

function job(name = 'scan.zip', size = 35, projectId = 7): UploadJob {
  return { projectId, path: name, file: new File(['x'.repeat(size)], name, { lastModified: 1_700_000_000_000 }) };
}

function resumeEntries(): string[] {
  return Object.keys(localStorage).filter((key) => key.startsWith('tus::'));
}

describe('the tus transport', () => {
  beforeEach(() => signIn());
  afterEach(() => localStorage.clear());

  it('sends the file in chunks with the bearer token on every request, and returns the new file id', async () => {
    const server = fakeTusServer();
    const seen: number[] = [];
    const result = await transport(job(), { ...noCallbacks, onProgress: (sent) => seen.push(sent) }).result;
    expect(result).toEqual({ fileId: 100 });
    expect(server.state.completed[0]?.upload).toMatchObject({ filename: 'scan.zip', projectId: '7', length: 35 });
    expect(server.requests.map((r) => r.method)).toEqual(['POST', 'PATCH', 'PATCH', 'PATCH', 'PATCH']);
    expect(server.requests.every((r) => r.authorization === 'Bearer u1-a')).toBe(true);
    expect(server.state.bytesReceived).toBe(35);
    expect(seen.at(-1)).toBe(35);
    // A finished upload cannot be resumed: its entry is gone, so picking the file again sends it anew.
    expect(resumeEntries()).toEqual([]);
  });

  it('sends a file that fits in one chunk with its creation: one request, for a file of a folder too', async () => {
    const server = fakeTusServer();
    const progress: number[] = [];
    const result = await transport(job('IM1.dcm', CHUNK), { ...noCallbacks, onProgress: (sent) => progress.push(sent) }).result;
    expect(result).toEqual({ fileId: 100 });
    expect(server.requests.map((r) => r.method)).toEqual(['POST']);
    expect(server.state.bytesReceived).toBe(CHUNK);
    expect(progress.at(-1)).toBe(CHUNK);
    expect(resumeEntries()).toEqual([]);

    const deliveryId = await deliveryApi.open(7, 'CD');
    const inFolder: UploadJob = { ...job('IM2', 4), delivery: { id: deliveryId, relativePath: 'DICOM/IM2' } };
    expect(await transport(inFolder, noCallbacks).result).toEqual({ fileId: null });
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /uploads', 'POST /deliveries', 'POST /uploads']);
    expect(server.state.completed.at(-1)?.upload).toMatchObject({ delivery: String(deliveryId), relativePath: 'DICOM/IM2', length: 4 });
  });

  it('creates a file over 1 MiB before sending it, even when it fits in one chunk, so an interrupted send can resume', async () => {
    const server = fakeTusServer();
    const size = WITH_CREATION_MAX_BYTES + 1;
    const result = await createTusTransport({ retryDelays: [] })(job('series.zip', size), noCallbacks).result;
    expect(result).toEqual({ fileId: 100 });
    expect(size).toBeLessThan(DEFAULT_CHUNK_BYTES);
    expect(server.requests.map((r) => `${r.method} ${r.offset ?? ''}`)).toEqual(['GET ', 'POST ', 'PATCH 0']);
    expect(server.state.bytesReceived).toBe(size);

    // At 1 MiB it still goes with its creation (the server takes such a file whole).
    const whole = await createTusTransport({ retryDelays: [] })(job('IM1.dcm', WITH_CREATION_MAX_BYTES), noCallbacks).result;
    expect(whole).toEqual({ fileId: 101 });
    expect(server.requests.slice(3).map((r) => r.method)).toEqual(['POST']);
  });

  it('sends a bundle as one upload of its delivery, marked as a tar, its files named by their paths inside it', async () => {
    const server = fakeTusServer();
    const deliveryId = await deliveryApi.open(7, 'CD');
    const members: BundleFile[] = [
      { path: 'DICOMDIR', file: new File(['d'.repeat(12)], 'DICOMDIR', { lastModified: 1 }) },
      { path: 'DICOM/IM1', file: new File(['i'.repeat(7)], 'IM1', { lastModified: 1 }) },
    ];
    const bundle: UploadJob = { projectId: 7, path: 'bundle.tar', file: packBundle(members), bundle: { deliveryId, members } };
    expect(await createTusTransport({ chunkSize: 4096 })(bundle, noCallbacks).result).toEqual({ fileId: null });
    const [done] = server.state.completed;
    expect(done?.upload).toMatchObject({ delivery: String(deliveryId), bundle: true, filename: 'bundle.tar', relativePath: undefined, projectId: '', length: 3072 });
    expect(done?.upload.members?.map((m) => [m.path, new TextDecoder().decode(m.bytes)])).toEqual([
      ['DICOMDIR', 'd'.repeat(12)],
      ['DICOM/IM1', 'i'.repeat(7)],
    ]);
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /deliveries', 'POST /uploads']);

    // Its resume key follows its members, not the tar made anew at each pick.
    const again = { ...bundle, file: packBundle(members) };
    expect(fingerprintOf(again)).toBe(fingerprintOf(bundle));
    const touched = [members[0] as BundleFile, { ...(members[1] as BundleFile), file: new File(['i'.repeat(7)], 'IM1', { lastModified: 2 }) }];
    expect(fingerprintOf({ ...bundle, bundle: { deliveryId, members: touched } })).not.toBe(fingerprintOf(bundle));
    expect(fingerprintOf({ ...bundle, bundle: { deliveryId: deliveryId + 1, members } })).not.toBe(fingerprintOf(bundle));
  });

  it('reads the token at each request, so a new sign-in is used at once', async () => {
    let release: () => void = () => undefined;
    const server = fakeTusServer({ patchFault: (_u, attempt) => (attempt === 1 ? { hold: new Promise<void>((r) => (release = r)) } : null) });
    const running = transport(job(), noCallbacks);
    await expect.poll(() => server.requests.filter((r) => r.method === 'PATCH').length).toBe(2);
    localStorage.setItem(TOKEN_KEY, 'u1-b');
    release();
    await running.result;
    expect(server.requests.map((r) => r.authorization)).toEqual(['Bearer u1-a', 'Bearer u1-a', 'Bearer u1-a', 'Bearer u1-b', 'Bearer u1-b']);
  });

  it('reports a refusal at creation with the server message, sends no byte, and does not retry it', async () => {
    const server = fakeTusServer({ refuseCreation: (u) => (u.filename.endsWith('.txt') ? { status: 415, message: 'This kind of file is not accepted' } : null) });
    const failure = await transport(job('notes.txt'), noCallbacks).result.catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(UploadFailure);
    expect((failure as UploadFailure).reason).toEqual({ message: 'Error 415', details: 'This kind of file is not accepted' });
    expect((failure as UploadFailure).retryable).toBe(false);
    expect(server.requests.map((r) => r.method)).toEqual(['POST']);
    expect(server.state.bytesReceived).toBe(0);
  });

  it('retries after network errors, 5xx and 408 answers and resumes at the server offset', async () => {
    const server = fakeTusServer({
      patchFault: (_upload, attempt) => (attempt === 1 ? { network: true } : attempt === 3 ? { status: 503, message: 'busy' } : attempt === 5 ? { status: 408, message: 'No data arrived' } : null),
    });
    await expect(transport(job(), noCallbacks).result).resolves.toEqual({ fileId: 100 });
    expect(server.state.bytesReceived).toBe(35);
    expect(server.requests.filter((r) => r.method === 'HEAD')).toHaveLength(3);
  });

  it('gives up after the last retry with a connection error the user can retry', async () => {
    fakeTusServer({ patchFault: () => ({ network: true }) });
    const failure = (await transport(job(), noCallbacks).result.catch((e: unknown) => e)) as UploadFailure;
    expect(failure.reason.message).toBe('Connection Error');
    expect(failure.retryable).toBe(true);
    // The server keeps what it has: the entry stays so that a retry resumes.
    expect(resumeEntries()).toHaveLength(1);
  });

  it('does not retry a refusal of the complete file, and forgets it', async () => {
    const server = fakeTusServer({ refuseFinal: () => ({ status: 415, message: 'The content of scan.zip is not a ZIP archive' }) });
    const failure = (await transport(job(), noCallbacks).result.catch((e: unknown) => e)) as UploadFailure;
    expect(failure.reason.details).toBe('The content of scan.zip is not a ZIP archive');
    expect(failure.retryable).toBe(false);
    expect(server.requests.filter((r) => r.method === 'PATCH')).toHaveLength(4);
    await expect.poll(() => resumeEntries()).toEqual([]);
  });

  it('resumes an interrupted upload from where the server has it when the same file is picked again', async () => {
    const server = fakeTusServer({ patchFault: (_u, attempt) => (attempt === 2 ? { hold: new Promise<void>(() => undefined) } : null) });
    const first = transport(job(), noCallbacks);
    await expect.poll(() => server.requests.filter((r) => r.method === 'PATCH').length).toBe(3);
    // A reload: the page's requests die, the server keeps 20 bytes.
    first.abandon();
    expect(server.state.bytesReceived).toBe(20);

    let resumed = false;
    const again = job();
    await expect(transport(again, { ...noCallbacks, onResume: () => (resumed = true) }).result).resolves.toEqual({ fileId: 100 });
    expect(resumed).toBe(true);
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(server.state.bytesReceived).toBe(35);
  });

  it.each([
    ['another project', () => undefined, 8],
    ['another user', () => signIn(2, 'u2-a'), 7],
  ])('never offers an unfinished upload to %s', async (_label, switchContext, projectId) => {
    const server = fakeTusServer({ patchFault: (u, attempt) => (u.id === 1 && attempt === 1 ? { hold: new Promise<void>(() => undefined) } : null) });
    const first = transport(job(), noCallbacks);
    await expect.poll(() => server.requests.filter((r) => r.method === 'PATCH').length).toBe(2);
    first.abandon();
    switchContext();
    await transport(job('scan.zip', 35, projectId), noCallbacks).result;
    expect(server.requests.filter((r) => r.method === 'HEAD')).toHaveLength(0);
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(2);
  });

  it('a paused file given up is terminated on the server and forgotten, in the form it was sent in, and no other file is', async () => {
    const server = fakeTusServer({ patchFault: (_u, attempt) => (attempt === 1 ? { hold: new Promise<void>(() => undefined) } : null) });
    const original = job();
    // Sent de-identified (its variant names the made copy), then paused: the page lets go, the server keeps its part.
    const paused = transport({ ...original, file: new File(['y'.repeat(35)], 'scan.zip'), variant: { made: 'basic:2024b', original: original.file } }, noCallbacks);
    const other = transport(job('other.zip'), noCallbacks);
    await expect.poll(() => server.requests.filter((r) => r.method === 'PATCH').length).toBe(4);
    paused.abandon();
    other.abandon();
    expect(resumeEntries()).toHaveLength(2);

    await discardResumable(original);
    expect(server.requests.filter((r) => r.method === 'DELETE')).toEqual([expect.objectContaining({ url: '/uploads/1', authorization: 'Bearer u1-a' })]);
    expect(server.state.terminated).toEqual([1]);
    expect(resumeEntries()).toHaveLength(1);
    expect(resumeEntries()[0]).toContain('other.zip');
  });

  it('cancelling terminates the upload on the server and forgets it', async () => {
    const server = fakeTusServer({ patchFault: (_u, attempt) => (attempt === 1 ? { hold: new Promise<void>(() => undefined) } : null) });
    const running = transport(job(), noCallbacks);
    await expect.poll(() => server.requests.filter((r) => r.method === 'PATCH').length).toBe(2);
    await running.cancel();
    expect(server.requests.at(-1)).toMatchObject({ method: 'DELETE', url: '/uploads/1', authorization: 'Bearer u1-a' });
    expect(server.uploads.size).toBe(0);
    expect(resumeEntries()).toEqual([]);
  });

  it('signs the user out when the server no longer accepts the token', async () => {
    fakeTusServer({ refuseCreation: () => ({ status: 401, message: 'Sign in again' }) });
    const failure = (await transport(job(), noCallbacks).result.catch((e: unknown) => e)) as UploadFailure;
    expect(failure.reason.message).toBe('Unauthorized');
    expect(localStorage.getItem(TOKEN_KEY)).toBeNull();
  });

  it('drops resume entries older than the server keeps unfinished uploads, and only the portal\'s', async () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    const add = (fingerprint: string, ageMs: number) =>
      defaultOptions.urlStorage.addUpload(fingerprint, {
        size: 10,
        metadata: {},
        creationTime: new Date(now - ageMs).toString(),
        uploadUrl: 'http://localhost/api/v1/uploads/x',
        parallelUploadUrls: null,
        urlStorageKey: '',
      });
    await add('portal-upload:old', RESUME_MAX_AGE_MS + 60_000);
    await add('portal-upload:fresh', RESUME_MAX_AGE_MS - 60_000);
    await add('another-app', RESUME_MAX_AGE_MS + 60_000);
    await pruneExpiredResumes(now);
    const left = resumeEntries();
    expect(left.some((k) => k.startsWith('tus::portal-upload:fresh::'))).toBe(true);
    expect(left.some((k) => k.startsWith('tus::another-app::'))).toBe(true);
    expect(left.some((k) => k.startsWith('tus::portal-upload:old::'))).toBe(false);
    expect(left).toHaveLength(2);
  });

  describe('the chunk size', () => {
    const LARGE = WITH_CREATION_MAX_BYTES + 16;
    const HALF = WITH_CREATION_MAX_BYTES / 2;
    const offsetsOf = (server: ReturnType<typeof fakeTusServer>, id: number) =>
      server.requests.filter((r) => r.method === 'PATCH' && r.url === `/uploads/${id}`).map((r) => Number(r.offset));
    const addResume = (entry: UploadJob) =>
      defaultOptions.urlStorage.addUpload(fingerprintOf(entry), {
        size: entry.file.size,
        metadata: {},
        creationTime: new Date().toString(),
        uploadUrl: 'http://localhost/api/v1/uploads/9',
        parallelUploadUrls: null,
        urlStorageKey: '',
      });

    it('follows the size the server announces, asked once for large files sent together', async () => {
      const server = fakeTusServer({ uploadSettings: () => ({ chunkBytes: HALF }) });
      const send = createTusTransport({ retryDelays: [] });
      const results = await Promise.all([send(job('a.zip', LARGE), noCallbacks).result, send(job('b.zip', LARGE), noCallbacks).result]);
      expect(results.map((r) => r.fileId).sort()).toEqual([100, 101]);
      expect(server.requests.filter((r) => r.method === 'GET').map((r) => r.url)).toEqual(['/upload-settings']);
      expect(offsetsOf(server, 1)).toEqual([0, HALF, 2 * HALF]);
      expect(offsetsOf(server, 2)).toEqual([0, HALF, 2 * HALF]);
      expect(server.state.bytesReceived).toBe(2 * LARGE);
    });

    it('asks nothing for files that go whole with their creation, however many', async () => {
      const server = fakeTusServer({ uploadSettings: () => ({ chunkBytes: 4 }) });
      const send = createTusTransport({ retryDelays: [] });
      const sizes = [1, 35, WITH_CREATION_MAX_BYTES];
      await Promise.all(sizes.map((size, i) => send(job(`IM${i}`, size), noCallbacks).result));
      expect(server.requests.map((r) => r.method)).toEqual(['POST', 'POST', 'POST']);
    });

    it.each<[string, SettingsReply]>([
      ['fails', { status: 500, data: { message: 'Internal server error' } }],
      ['does not answer', { network: true }],
      ['answers no settings', { status: 200, data: { data: [] } }],
      ['answers a size that is none', { status: 200, data: { data: [{ chunk_bytes: 0 }] } }],
    ])('sends in chunks of the default when the server %s, and asks again for the next file', async (_label, settings) => {
      const server = fakeTusServer({ uploadSettings: () => settings });
      const send = createTusTransport({ retryDelays: [] });
      await expect(send(job('a.zip', LARGE), noCallbacks).result).resolves.toEqual({ fileId: 100 });
      await expect(send(job('b.zip', LARGE), noCallbacks).result).resolves.toEqual({ fileId: 101 });
      expect(LARGE).toBeLessThan(DEFAULT_CHUNK_BYTES);
      expect(server.requests.map((r) => `${r.method} ${r.offset ?? ''}`)).toEqual(['GET ', 'POST ', 'PATCH 0', 'GET ', 'POST ', 'PATCH 0']);
    });

    it('keeps the answer for a minute', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        const start = Date.parse('2026-11-25T08:00:00Z');
        vi.setSystemTime(start);
        const server = fakeTusServer({ uploadSettings: () => ({ chunkBytes: HALF }) });
        const send = createTusTransport({ retryDelays: [] });
        const asked = () => server.requests.filter((r) => r.method === 'GET').length;
        await send(job('a.zip', LARGE), noCallbacks).result;
        vi.setSystemTime(start + 59_000);
        await send(job('b.zip', LARGE), noCallbacks).result;
        expect(asked()).toBe(1);
        vi.setSystemTime(start + 60_000);
        await send(job('c.zip', LARGE), noCallbacks).result;
        expect(asked()).toBe(2);
      } finally {
        vi.useRealTimers();
      }
    });

    it('sends nothing when cancelled or abandoned while the size is asked for; cancelling still forgets the resume entry', async () => {
      let answer: (reply: SettingsReply) => void = () => undefined;
      const server = fakeTusServer({ uploadSettings: () => new Promise<SettingsReply>((resolve) => (answer = resolve)) });
      const send = createTusTransport({ retryDelays: [] });
      const [cancelled, abandoned] = [job('a.zip', LARGE), job('b.zip', LARGE)];
      await addResume(cancelled);
      await addResume(abandoned);
      const first = send(cancelled, noCallbacks);
      const second = send(abandoned, noCallbacks);
      await expect.poll(() => server.requests.length).toBe(1);
      await first.cancel();
      second.abandon();
      answer({ chunkBytes: HALF });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /upload-settings']);
      const left = resumeEntries();
      expect(left).toHaveLength(1);
      expect(left[0]?.startsWith(`tus::${fingerprintOf(abandoned)}::`)).toBe(true);
    });
  });
});
