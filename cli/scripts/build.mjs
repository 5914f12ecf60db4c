// `npm run build -w cli`: the uploader as one file, dist/portal-upload.mjs, that runs with Node
// alone (its dependencies, the de-identification engine included, are inside).
import { build } from 'esbuild';

await build({
  entryPoints: [new URL('../src/cli.ts', import.meta.url).pathname],
  outfile: new URL('../dist/portal-upload.mjs', import.meta.url).pathname,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  // Some of dcmjs's dependencies are CommonJS that call require(): give the ESM bundle one.
  banner: { js: "#!/usr/bin/env node\nimport { createRequire as __portalRequire } from 'node:module'; const require = __portalRequire(import.meta.url);" },
  legalComments: 'linked',
  logLevel: 'warning',
});
