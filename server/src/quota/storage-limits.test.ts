import { describe, expect, it } from 'vitest';
import { DEFAULT_MIN_FREE } from '../config/config.js';
import { explainStorageFull, isStorageFull, STORAGE_FULL_MESSAGE } from './storage-errors.js';
import { requiredFree, StorageHeadroom } from './storage-headroom.js';

const GiB = 1024 ** 3;

describe('the free space uploads leave', () => {
  it('is the smaller of 2 GiB and 5 % by default, so a small disk is not refused whole', () => {
    expect(requiredFree(DEFAULT_MIN_FREE, 1000 * GiB)).toBe(2 * GiB);
    expect(requiredFree(DEFAULT_MIN_FREE, 10 * GiB)).toBe(Math.ceil(0.5 * GiB));
  });

  it('counts an announced size where uploads are stored, and not where they go elsewhere (S3)', async () => {
    const read = () => Promise.resolve({ free: 3 * GiB, total: 100 * GiB });
    const minFree = { bytes: 2 * GiB, percent: undefined };
    await expect(new StorageHeadroom(['/data'], minFree, read).requireRoom(GiB / 2)).resolves.toBeUndefined();
    await expect(new StorageHeadroom(['/data'], minFree, read).requireRoom(2 * GiB)).rejects.toMatchObject({ status: 507 });
    await expect(new StorageHeadroom(['/data'], minFree, read, false).requireRoom(2 * GiB)).resolves.toBeUndefined();
  });

  it('reuses a reading for a second at most, taking off each admitted upload, never a refused one', async () => {
    let reads = 0;
    let free = 3 * GiB;
    const read = () => {
      reads += 1;
      return Promise.resolve({ free, total: 100 * GiB });
    };
    const headroom = new StorageHeadroom(['/data'], { bytes: 2 * GiB, percent: undefined }, read, true, 1000);
    await headroom.requireRoom(GiB / 2);
    // A refusal takes nothing off: the next upload that fits is still admitted.
    await expect(headroom.requireRoom(GiB)).rejects.toMatchObject({ status: 507 });
    await headroom.requireRoom(GiB / 4);
    // 3 GiB less the 0.75 GiB admitted since the reading: another 0.5 GiB would pass the 2 GiB kept free.
    await expect(headroom.requireRoom(GiB / 2)).rejects.toMatchObject({ status: 507 });
    expect(reads).toBe(1);
    // The readiness check reads afresh.
    free = GiB;
    expect(await headroom.shortage()).toMatch(/^Low on storage/);
    expect(reads).toBe(2);
  });

  it('passes a folder whose free space cannot be read (the readiness check reports that storage)', async () => {
    const headroom = new StorageHeadroom(['/nowhere'], { bytes: GiB, percent: undefined }, () => Promise.reject(new Error('ENOENT')));
    expect(await headroom.shortage()).toBeUndefined();
  });
});

describe('a full disk', () => {
  it('is told by its codes, also as the cause of another error', () => {
    for (const code of ['ENOSPC', 'EDQUOT', 'SQLITE_FULL', '53100']) expect(isStorageFull(Object.assign(new Error('x'), { code }))).toBe(true);
    expect(isStorageFull(new Error('wrapped', { cause: Object.assign(new Error('x'), { code: 'ENOSPC' }) }))).toBe(true);
    expect(isStorageFull(Object.assign(new Error('x'), { code: 'EACCES' }))).toBe(false);
    expect(isStorageFull('ENOSPC')).toBe(false);
  });

  it('becomes a 507 with words; anything else stays as it was', () => {
    expect(explainStorageFull(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }))).toMatchObject({ status: 507, message: STORAGE_FULL_MESSAGE });
    const other = new Error('other');
    expect(explainStorageFull(other)).toBe(other);
  });
});
