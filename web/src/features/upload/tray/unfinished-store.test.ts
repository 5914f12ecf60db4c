import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { closeUnfinishedStore, forgetUnfinished, listUnfinished, saveUnfinished, unfinishedId, UNFINISHED_MAX_AGE_MS, type UnfinishedUpload } from './unfinished-store';

function upload(userId: number, path: string, savedAt: number): UnfinishedUpload {
  return { id: unfinishedId(userId, 7, `${path}:100:1`), userId, projectId: 7, projectName: 'Liver study', path, folder: null, size: 100, lastModified: 1, sent: 40, savedAt };
}

afterEach(async () => {
  closeUnfinishedStore();
  await new Promise<void>((resolve) => {
    const req = indexedDB.deleteDatabase('portal-uploads');
    req.onsuccess = () => resolve();
    req.onerror = () => resolve();
  });
});

describe('the unfinished uploads the browser remembers', () => {
  it('lists what was saved for the signed-in user only, as saved, and forgets on request', async () => {
    const now = Date.now();
    await saveUnfinished([upload(1, 'b.zip', now - 10), upload(1, 'a.zip', now - 20), upload(2, 'other.zip', now)]);
    expect((await listUnfinished(1, now)).map((u) => [u.path, u.sent, u.projectName])).toEqual([
      ['a.zip', 40, 'Liver study'],
      ['b.zip', 40, 'Liver study'],
    ]);
    // A save of the same file replaces it: one entry per file, with the bytes last heard.
    await saveUnfinished([{ ...upload(1, 'a.zip', now), sent: 90 }]);
    expect((await listUnfinished(1, now)).map((u) => [u.path, u.sent])).toEqual([
      ['b.zip', 40],
      ['a.zip', 90],
    ]);
    await forgetUnfinished([upload(1, 'a.zip', now).id]);
    expect((await listUnfinished(1, now)).map((u) => u.path)).toEqual(['b.zip']);
    expect((await listUnfinished(2, now)).map((u) => u.path)).toEqual(['other.zip']);
  });

  it('drops entries older than the server keeps an unfinished upload (24 h): they could not be resumed', async () => {
    const now = Date.now();
    await saveUnfinished([upload(1, 'old.zip', now - UNFINISHED_MAX_AGE_MS - 1), upload(1, 'new.zip', now - 1000)]);
    expect((await listUnfinished(1, now)).map((u) => u.path)).toEqual(['new.zip']);
    // Dropped from the store, not only from the answer.
    expect((await listUnfinished(1, now - 2 * UNFINISHED_MAX_AGE_MS)).map((u) => u.path)).toEqual(['new.zip']);
  });
});
