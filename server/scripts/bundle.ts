// How the server is bundled, for `npm start` (build.ts) and for the ingest benchmark, which must
// time the same JavaScript a server runs. Dependencies stay external; the shared contract is
// bundled in. Each 7-Zip worker is its own entry: sevenzip-client starts sevenzip-worker.js from
// beside the bundle that spawns it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const pkgFile = path.resolve(import.meta.dirname, '..', 'package.json');

export async function bundleServer(options: { absWorkingDir: string; entryPoints: string[]; outdir: string }): Promise<void> {
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { dependencies: Record<string, string> };
  await build({
    ...options,
    entryNames: '[name]',
    bundle: true,
    platform: 'node',
    format: 'esm',
    // Modules imported only when chosen (the S3 backend and its SDK) stay in chunks of their own,
    // so a process that does not choose them never loads them.
    splitting: true,
    target: 'node22.13',
    sourcemap: true,
    external: Object.keys(pkg.dependencies).filter((name) => name !== '@portal/contract'),
    logLevel: 'warning',
  });
}
