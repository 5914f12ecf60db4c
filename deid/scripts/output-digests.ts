// Writes test/fixtures/output-digests.json: the SHA-256 of the engine's output for every file of the
// test corpus under each policy of test/output-digests.test.ts. Run it only when a change of the
// output bytes is intended (it breaks resumed uploads made before it, see that test), then commit
// the file with the change: `npx tsx scripts/output-digests.ts` in deid/.
import { writeFileSync } from 'node:fs';
import { DIGESTS_FILE, outputDigests } from '../test/output-digests.js';

writeFileSync(DIGESTS_FILE, `${JSON.stringify(outputDigests(), null, 1)}\n`);
console.log(`written: ${DIGESTS_FILE}`);
