// Bundles the server into dist/ for `npm start`: plain JavaScript starts faster and holds ~60 MB
// less memory than transpiling TypeScript at run time (tsx), which the upload benchmark's RSS
// budget needs. Dependencies stay external; the shared contract is bundled in.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };

await build({
  absWorkingDir: root,
  // The 7-Zip worker is its own entry: sevenzip-client starts dist/sevenzip-worker.js beside main.js.
  entryPoints: ['src/main.ts', 'src/worker.ts', 'src/processing/sevenzip-worker.ts'],
  entryNames: '[name]',
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  external: Object.keys(pkg.dependencies).filter((name) => name !== '@portal/contract'),
  logLevel: 'warning',
});
