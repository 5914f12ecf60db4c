// Bundles the timed side of the ingest benchmark exactly as `npm start` is bundled: the job then
// runs the same plain JavaScript (and 7-Zip worker) a server runs, without tsx transpiling in
// every thread.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleServer } from '../../server/scripts/bundle.js';

const bench = fileURLToPath(new URL('..', import.meta.url));

/** Answers the path of the bundled child script. */
export async function buildIngestChild(): Promise<string> {
  await bundleServer({
    absWorkingDir: bench,
    entryPoints: ['src/ingest-child.ts', '../server/src/ingest/extract/sevenzip/sevenzip-worker.ts'],
    outdir: 'dist',
  });
  return path.join(bench, 'dist/ingest-child.js');
}
