#!/usr/bin/env node
// `npx portal-upload` in a checkout: builds the single-file program when it is missing, then runs it.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const bundle = new URL('../dist/portal-upload.mjs', import.meta.url);
if (!existsSync(bundle)) {
  const built = spawnSync(process.execPath, [new URL('../scripts/build.mjs', import.meta.url).pathname], { stdio: 'inherit' });
  if (built.status !== 0) process.exit(1);
}
await import(bundle.href);
