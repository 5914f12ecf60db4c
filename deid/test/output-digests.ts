// The engine's output over the test corpus, as digests: what test/output-digests.test.ts holds the
// engine to and scripts/output-digests.ts writes.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { deidentify, OPTIONS, type Option } from '../src/index.js';
import { DeidentificationError } from '../src/errors.js';
import { corpus, FIXTURES, fixture, KEY } from './helpers.js';

export const DIGESTS_FILE = join(FIXTURES, '..', 'output-digests.json');

/** The Basic profile alone, with each option, and with all of them. */
export const POLICIES: Option[][] = [[], ...OPTIONS.map((o) => [o]), [...OPTIONS]];

/** File name → policy ("basic", "basic+option…") → SHA-256 of the output, or the refusal's code. */
export function outputDigests(): Record<string, Record<string, string>> {
  const digests: Record<string, Record<string, string>> = {};
  for (const name of corpus()) {
    const input = fixture(name);
    digests[name] = {};
    for (const options of POLICIES) {
      let digest: string;
      try {
        digest = createHash('sha256').update(deidentify(input, { profile: 'basic', options }, KEY).bytes).digest('hex');
      } catch (error) {
        if (!(error instanceof DeidentificationError)) throw error;
        digest = `refused: ${error.code}`;
      }
      digests[name][['basic', ...options].join('+')] = digest;
    }
  }
  return digests;
}
