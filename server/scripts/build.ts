// Bundles the server into dist/ for `npm start`: plain JavaScript starts faster and holds ~60 MB
// less memory than transpiling TypeScript at run time (tsx), which the upload benchmark's RSS
// budget needs.
import path from 'node:path';
import { bundleServer } from './bundle.js';

await bundleServer({
  absWorkingDir: path.resolve(import.meta.dirname, '..'),
  entryPoints: ['src/main.ts', 'src/worker.ts', 'src/ingest/extract/sevenzip/sevenzip-worker.ts'],
  outdir: 'dist',
});
