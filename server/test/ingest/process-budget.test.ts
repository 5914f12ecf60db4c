// The work budget (issue 12): a nest of small archives stops at the archives, entries or time one
// upload may cost, promptly, and the upload fails with a sentence its owner can act on.
import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { budgetMessage } from '../../src/ingest/work-budget.js';
import { archivesShown, buildNestedZips } from '../nested-zips.js';
import { collect, tempDir } from './helpers.js';

describe('the work budget of one upload', () => {
  // 1 + 4 + 16 archives, 64 leaves of 1 KB: small enough to build per test.
  const nest = async () => buildNestedZips(await tempDir(), { levels: 3, width: 4, leafBytes: 1024 });

  it('processes the whole nest when it fits the budget', async () => {
    const { result, entries } = await collect(await nest(), 'nest.zip', { limits: { maxArchives: 21, maxEntriesSeen: 84 } });
    expect(result.status).toBe('ready');
    expect(entries).toHaveLength(64);
    expect(archivesShown(entries.map((e) => e.path))).toBe(21);
  });

  it('stops before opening one archive more than allowed, saying so and what to do', async () => {
    const { result, entries } = await collect(await nest(), 'nest.zip', { limits: { maxArchives: 10 } });
    expect(result.status).toBe('failed');
    expect(result.error).toBe(
      'Processing stopped: the upload holds more than 10 archives (counting those inside other archives), the most one upload may open. ' +
        'Unpack it and upload its contents, or ask your administrator to raise MAX_ARCHIVES_PER_UPLOAD.',
    );
    // Depth first: the top, l2-00 and its four inner zips, l2-01 and three of its four make 10.
    expect(archivesShown(entries.map((e) => e.path))).toBe(10);
    expect(entries.length).toBe(7 * 4);
    // What was found before the stop is counted in the summary the owner sees beside the reason.
    expect(result.summary.other).toBe(28);
  });

  it('stops once the listings name more entries than allowed, before extracting that archive', async () => {
    const { result, entries } = await collect(await nest(), 'nest.zip', { limits: { maxEntriesSeen: 30 } });
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/^Processing stopped: the archives in this upload list more than 30 entries in all, .*MAX_ENTRIES_SEEN_PER_UPLOAD\.$/);
    // Listed: 4 (top) + 4 (l2-00) + 4 × 4 leaves = 24, then l2-01 (28) and its first inner zip (32).
    expect(entries.length).toBe(16);
  });

  it('stops when its time is up, with the reason, and leaves no work files', async () => {
    const workDir = await tempDir();
    const { result } = await collect(await nest(), 'nest.zip', { limits: { maxProcessingMs: 1 }, workDir });
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/^Processing stopped: the upload was still being processed after 0 seconds, .*MAX_PROCESSING_SECONDS\.$/);
    expect(await readdir(workDir)).toEqual([]);
  });

  it('names the time limit in minutes when it is whole minutes', () => {
    expect(budgetMessage('time', { maxArchives: 1, maxEntriesSeen: 1, maxProcessingMs: 3_600_000 })).toMatch(/after 60 minutes, the longest/);
    expect(budgetMessage('archives', { maxArchives: 1000, maxEntriesSeen: 1, maxProcessingMs: 1 })).toMatch(/more than 1,000 archives/);
  });
});
