// Bundles the timed side of the ingest benchmark with esbuild, as server/scripts/build.ts bundles
// `npm start`: the job then runs the same plain JavaScript (and 7-Zip worker) a server runs,
// without tsx transpiling in every thread.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const bench = fileURLToPath(new URL('..', import.meta.url));
const server = path.join(bench, '../server');

/** Answers the path of the bundled child script. */
export async function buildIngestChild(): Promise<string> {
  const pkg = JSON.parse(readFileSync(path.join(server, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  await build({
    absWorkingDir: bench,
    // The worker is its own entry: the job starts dist/sevenzip-worker.js beside the script.
    entryPoints: ['src/ingest-child.ts', '../server/src/processing/sevenzip-worker.ts'],
    entryNames: '[name]',
    outdir: 'dist',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: Object.keys(pkg.dependencies).filter((name) => name !== '@portal/contract'),
    logLevel: 'warning',
  });
  return path.join(bench, 'dist/ingest-child.js');
}
