// The engine's output bytes over the test corpus are held fixed: the same input, policy and key
// give the same bytes in every release, because a resumed upload sends again from where the server
// stopped (a browser of one release may resume what a browser of an earlier one began), and because
// the server keeps a browser's output only when it recognises it. The digests were written by the
// engine at 81d0873, before the engine wrote plain-text elements itself and left unread what it
// removes or empties: those changes kept every byte. A change meant to alter the output writes
// them again (scripts/output-digests.ts) and says so.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DIGESTS_FILE, outputDigests } from './output-digests.js';

describe('the output over the test corpus', () => {
  it('is byte for byte what it was, under every policy', () => {
    const expected = JSON.parse(readFileSync(DIGESTS_FILE, 'utf8')) as Record<string, Record<string, string>>;
    expect(outputDigests()).toEqual(expected);
  });
});
