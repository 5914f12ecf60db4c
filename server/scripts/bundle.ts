// How the server is bundled, for `npm start` (build.ts) and for the ingest benchmark, which must
// time the same JavaScript a server runs. Dependencies stay external; the workspace packages (the
// shared contract, the de-identification engine) are TypeScript sources, so they are bundled in,
// their own dependencies staying external too. Each 7-Zip worker is its own entry: sevenzip-client starts sevenzip-worker.js from
// beside the bundle that spawns it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const pkgFile = path.resolve(import.meta.dirname, '..', 'package.json');
const WORKSPACE_SCOPE = '@portal/';

function dependenciesOf(file: string): string[] {
  return Object.keys((JSON.parse(readFileSync(file, 'utf8')) as { dependencies?: Record<string, string> }).dependencies ?? {});
}

/** Every npm dependency the bundle reaches, its workspace packages' included; not the workspace packages. */
function externalDependencies(): string[] {
  const own = dependenciesOf(pkgFile);
  const workspaces = own.filter((name) => name.startsWith(WORKSPACE_SCOPE));
  const theirs = workspaces.flatMap((name) => dependenciesOf(path.resolve(import.meta.dirname, '../..', name.slice(WORKSPACE_SCOPE.length), 'package.json')));
  return [...new Set([...own, ...theirs])].filter((name) => !name.startsWith(WORKSPACE_SCOPE));
}

export async function bundleServer(options: { absWorkingDir: string; entryPoints: string[]; outdir: string }): Promise<void> {
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
    external: externalDependencies(),
    logLevel: 'warning',
  });
}
