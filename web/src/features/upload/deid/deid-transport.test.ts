import { readFileSync } from 'node:fs';
import path from 'node:path';
import { deidentify, type Policy } from '@portal/deid';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { storeSession } from '../../../lib/storage';
import { packBundle, type BundleFile } from '../api/bundle';
import { createTusTransport, fingerprintOf, LeftOutFailure, type UploadJob } from '../api/tus-upload';
import { fakeTusServer } from '../testing/fake-tus-server';
import { readTar } from '../testing/read-tar';
import { inlineDeidentifier } from './deid-pool';
import { BATCH_FILES } from './deid-batch';
import { deidentifiedBundleMaker, deidentifyingTransport, policyTag } from './deid-transport';

const FIXTURES = path.resolve(__dirname, '../../../../../deid/test/fixtures/dicom');
const SERVER_FIXTURES = path.resolve(__dirname, '../../../../../server/test/fixtures/dicom');
const bytesOf = (name: string, dir = FIXTURES) => new Uint8Array(readFileSync(path.join(dir, name)));
const ct = bytesOf('s01_CT_small.dcm');
const EDITION = 'DICOM PS3.15 2025b';
const KEY = new Uint8Array(32).map((_, i) => i + 7);
const POLICY: Policy = { profile: 'basic', options: ['retainLongitudinalModifiedDates'] };
const noCallbacks = { onProgress: () => undefined, onResume: () => undefined };
const tus = createTusTransport({ chunkSize: 8 * 1024, retryDelays: [0] });
const transport = deidentifyingTransport(tus, inlineDeidentifier(POLICY, KEY), POLICY, EDITION);

const picked = (bytes: Uint8Array, name = 'IM000001') => new File([bytes as Uint8Array<ArrayBuffer>], name, { lastModified: 1_700_000_000_000 });
const has = (haystack: Uint8Array, text: string) => Buffer.from(haystack).includes(Buffer.from(text, 'latin1'));
const received = async (chunks: readonly Blob[] | undefined) => new Uint8Array(await new Blob(chunks as Blob[]).arrayBuffer());

describe('sending through de-identification', () => {
  beforeEach(() => storeSession('u1-a', { id: 1, username: 'ann', firstname: 'Ann', lastname: 'Lee', role: 1, company_id: 1, company: null }));
  afterEach(() => localStorage.clear());

  it('sends a file de-identified: the engine’s bytes, without the patient’s name', async () => {
    expect(has(ct, 'CompressedSamples^CT1')).toBe(true);
    const server = fakeTusServer();
    let last = 0;
    const file = picked(ct);
    await transport({ projectId: 7, path: 'IM000001', file }, { ...noCallbacks, onProgress: (sent) => (last = sent) }).result;
    const sent = await received(server.state.completed[0]?.upload.chunks);
    expect(sent).toEqual(deidentify(ct, POLICY, KEY).bytes);
    expect(has(sent, 'CompressedSamples^CT1')).toBe(false);
    // Progress is told in the picked file's bytes, which the dialog shows.
    expect(last).toBe(file.size);
  });

  it('resumes an interrupted upload with the same bytes: the server ends with exactly the engine’s output', async () => {
    const server = fakeTusServer({ patchFault: (_u, attempt) => (attempt === 2 ? { hold: new Promise<void>(() => undefined) } : null) });
    const first = transport({ projectId: 7, path: 'IM000001', file: picked(ct) }, noCallbacks);
    await expect.poll(() => server.requests.filter((r) => r.method === 'PATCH').length).toBe(3);
    first.abandon();
    let resumed = false;
    // Picked again after a reload: a new File object of the same file, de-identified anew.
    await transport({ projectId: 7, path: 'IM000001', file: picked(ct) }, { ...noCallbacks, onResume: () => (resumed = true) }).result;
    expect(resumed).toBe(true);
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(await received(server.state.completed[0]?.upload.chunks)).toEqual(deidentify(ct, POLICY, KEY).bytes);
  });

  it('keys a resume by the picked file and the policy: another policy is another upload', () => {
    const file = picked(ct);
    const made = picked(deidentify(ct, POLICY, KEY).bytes);
    const job = (p: Policy): UploadJob => ({ projectId: 7, path: 'IM000001', file: made, variant: { made: policyTag(p, EDITION), original: file } });
    expect(fingerprintOf(job(POLICY))).toContain(String(file.size));
    expect(fingerprintOf(job(POLICY))).not.toBe(fingerprintOf(job({ profile: 'basic', options: [] })));
    expect(fingerprintOf({ projectId: 7, path: 'IM000001', file })).not.toBe(fingerprintOf(job(POLICY)));
  });

  it('packs a bundle of de-identified members under their own paths', async () => {
    const server = fakeTusServer();
    const deliveryId = 1;
    server.deliveries.push({ id: deliveryId, name: 'CD', projectId: 7, completed: false });
    const members: BundleFile[] = [
      { path: 'DICOM/IM000001', file: picked(ct) },
      { path: 'DICOM/IM000002', file: picked(bytesOf('s10_MR_small_implicit.dcm'), 'IM000002') },
    ];
    await transport({ projectId: 7, path: 'bundle.tar', file: packBundle(members), bundle: { deliveryId, members } }, noCallbacks).result;
    const tar = readTar(await received(server.state.completed[0]?.upload.chunks));
    expect(tar.map((e) => e.path)).toEqual(['DICOM/IM000001', 'DICOM/IM000002']);
    expect(tar[0]?.bytes).toEqual(deidentify(ct, POLICY, KEY).bytes);
  });

  it('sends no byte of a bundle holding files the engine refuses, and names each with its reason', async () => {
    const server = fakeTusServer();
    const members: BundleFile[] = [
      { path: 'DICOM/IM000001', file: picked(ct) },
      { path: 'INDEX', file: picked(bytesOf('s40_DICOMDIR', SERVER_FIXTURES), 'INDEX') },
      { path: 'DICOM/IM000003', file: picked(new Uint8Array(300).fill(7), 'IM000003') },
    ];
    const failure = await transport({ projectId: 7, path: 'bundle.tar', file: packBundle(members), bundle: { deliveryId: 1, members } }, noCallbacks).result.catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(LeftOutFailure);
    const leftOut = (failure as LeftOutFailure).leftOut;
    expect([...leftOut.keys()]).toEqual(['INDEX', 'DICOM/IM000003']);
    expect(leftOut.get('INDEX')).toMatch(/DICOMDIR.*left out/);
    expect(server.requests).toHaveLength(0);
  });

  it('names a refused member of a later batch by its own path', async () => {
    const server = fakeTusServer();
    const members: BundleFile[] = Array.from({ length: BATCH_FILES + 3 }, (_, i) => ({ path: `DICOM/IM${i}`, file: picked(ct, `IM${i}`) }));
    members[BATCH_FILES + 1] = { path: 'DICOM/README', file: picked(new Uint8Array(300).fill(7), 'README') };
    const failure = await transport({ projectId: 7, path: 'bundle.tar', file: packBundle(members), bundle: { deliveryId: 1, members } }, noCallbacks).result.catch((e: unknown) => e);
    expect([...(failure as LeftOutFailure).leftOut.keys()]).toEqual(['DICOM/README']);
    expect(server.requests).toHaveLength(0);
  });

  it('sends a bundle made de-identified before its send as it is: the same bytes and resume key as one made in the send', async () => {
    const server = fakeTusServer();
    for (const id of [1, 2]) server.deliveries.push({ id, name: 'CD', projectId: 7, completed: false });
    const members: BundleFile[] = [
      { path: 'DICOM/IM000001', file: picked(ct) },
      { path: 'DICOM/IM000002', file: picked(bytesOf('s10_MR_small_implicit.dcm'), 'IM000002') },
    ];
    const inSend: UploadJob = { projectId: 7, path: 'bundle.tar', file: packBundle(members), bundle: { deliveryId: 1, members } };
    await transport(inSend, noCallbacks).result;
    const made = await deidentifiedBundleMaker(inlineDeidentifier(POLICY, KEY), POLICY, EDITION)(members);
    const before: UploadJob = { projectId: 7, path: 'bundle.tar', ...made, bundle: { deliveryId: 2, members } };
    await transport(before, noCallbacks).result;
    const [first, second] = server.state.completed;
    expect(await received(second?.upload.chunks)).toEqual(await received(first?.upload.chunks));
    expect(fingerprintOf(before)).toBe(fingerprintOf({ ...inSend, bundle: before.bundle, variant: { made: policyTag(POLICY, EDITION) } }));
  });
});
