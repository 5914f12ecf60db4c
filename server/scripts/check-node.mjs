// Run before anything else by `npm start`, `npm run build`, `npm run worker` and `npm run admin`:
// plain JavaScript, so that an older Node reads it, and says in words what is missing instead of
// building for 20 s and then failing on an import it does not have (node:module's setSourceMapsSupport).
import { readFileSync } from 'node:fs';

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
const wanted = /^>=\s*(\d+)\.(\d+)/.exec(manifest.engines.node);
const [major, minor] = process.versions.node.split('.').map(Number);
if (wanted && (major < Number(wanted[1]) || (major === Number(wanted[1]) && minor < Number(wanted[2])))) {
  process.stderr.write(
    `The portal needs Node ${wanted[1]}.${wanted[2]} or later (24 LTS recommended); this is Node ${process.versions.node} ` +
      `(${process.execPath}). Install a newer Node, or put it first on PATH, and run the command again.\n`,
  );
  process.exit(1);
}
