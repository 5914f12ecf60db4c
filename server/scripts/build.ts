// Bundles the server into dist/ for `npm start`: plain JavaScript starts faster and holds ~60 MB
// less memory than transpiling TypeScript at run time (tsx), which the upload benchmark's RSS
// budget needs.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { bundleServer } from './bundle.js';

const serverDir = path.resolve(import.meta.dirname, '..');
// Chunk names carry a hash of their content: without a clean start, old chunks would pile up.
await rm(path.join(serverDir, 'dist'), { recursive: true, force: true });
await bundleServer({
  absWorkingDir: serverDir,
  entryPoints: ['src/main.ts', 'src/worker.ts', 'src/admin/cli.ts', 'src/ingest/extract/sevenzip/sevenzip-worker.ts', 'src/ingest/describe-worker.ts', 'src/thumbnails/thumbnail-process.ts'],
  outdir: 'dist',
});
