// `npm start` and `npm run build`: builds the web app and the server bundle, each only when its
// sources changed since its last build (`--force` builds both). A fingerprint of the sources'
// content is kept beside each build's output, so a second start skips straight to listening.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface BuildTarget {
  name: string;
  /** Files and folders (relative to the root) whose content decides whether a rebuild is due. */
  inputs: string[];
  /** A file the build must have produced; its absence means "never built". */
  product: string;
  /** Where the fingerprint is kept: inside the output, so a clean or a wiped output rebuilds. */
  stamp: string;
  command: string[];
  /** Environment variables that shape the output: a build made with other values is stale. */
  settings?: string[];
}

export const PORTAL_TARGETS: BuildTarget[] = [
  {
    name: 'web app',
    inputs: ['web/src', 'web/index.html', 'web/vite.config.ts', 'web/tsconfig.json', 'web/package.json', 'contract/src', 'deid/src', 'package-lock.json'],
    product: 'web/dist/index.html',
    stamp: 'web/dist/.build-fingerprint',
    command: ['npm', 'run', 'build', '-w', 'web'],
    // The e2e build's faster brotli must not be what `npm start` serves afterwards.
    settings: ['WEB_BROTLI_QUALITY'],
  },
  {
    name: 'server',
    inputs: ['server/src', 'server/scripts/build.ts', 'server/scripts/bundle.ts', 'server/package.json', 'contract/src', 'deid/src', 'package-lock.json'],
    product: 'server/dist/main.js',
    stamp: 'server/dist/.build-fingerprint',
    command: ['npm', 'run', 'build', '-w', 'server'],
  },
  {
    // The OHIF viewer, fetched and prepared once (scripts/viewer-install.ts pins its version).
    name: 'viewer',
    inputs: ['server/scripts/viewer-install.ts', 'server/src/viewer/prepare.ts'],
    product: 'web/viewer-dist/index.html',
    stamp: 'web/viewer-dist/.build-fingerprint',
    command: ['npx', 'tsx', 'server/scripts/viewer-install.ts'],
  },
];

/** Tests are not shipped: changing one does not make a build stale. */
const IGNORED = /(\.test\.tsx?$|(^|\/)(test|node_modules|dist)\/)/;

function listFiles(root: string, entry: string): string[] {
  const full = path.join(root, entry);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [entry];
  return readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.relative(root, path.join(d.parentPath, d.name)).split(path.sep).join('/'))
    .filter((file) => !IGNORED.test(file));
}

export function fingerprint(root: string, target: BuildTarget): string {
  const hash = createHash('sha256');
  for (const name of target.settings ?? []) hash.update(`${name}=${process.env[name] ?? ''}`).update('\0');
  for (const file of [...new Set(target.inputs.flatMap((entry) => listFiles(root, entry)))].sort()) {
    hash.update(file).update('\0').update(readFileSync(path.join(root, file))).update('\0');
  }
  return hash.digest('hex');
}

export function isStale(root: string, target: BuildTarget): boolean {
  const stamp = path.join(root, target.stamp);
  if (!existsSync(path.join(root, target.product)) || !existsSync(stamp)) return true;
  return readFileSync(stamp, 'utf8').trim() !== fingerprint(root, target);
}

/** Builds what is stale (or everything when forced); answers the names of the targets it built. */
export function buildIfChanged(root: string, targets: BuildTarget[], force: boolean, log: (line: string) => void): string[] {
  const built: string[] = [];
  for (const target of targets) {
    if (!force && !isStale(root, target)) {
      log(`${target.name}: up to date, not rebuilt`);
      continue;
    }
    // Taken before building, so an edit made while the build runs still counts as a change.
    const print = fingerprint(root, target);
    log(`${target.name}: building`);
    const [command, ...args] = target.command;
    const result = spawnSync(command!, args, { cwd: root, stdio: 'inherit' });
    if (result.status !== 0) throw new Error(`building the ${target.name} failed (${target.command.join(' ')})`);
    writeFileSync(path.join(root, target.stamp), `${print}\n`);
    built.push(target.name);
  }
  return built;
}

// `build-if-changed.ts [--force] [--quiet] [target…]`: targets by name ('server', 'web app'), all
// when none is named. --quiet (the admin CLI's start) says only what it builds, on standard error,
// so that the command's own output stays the only thing on standard output.
if (import.meta.filename === path.resolve(process.argv[1] ?? '')) {
  const root = path.resolve(import.meta.dirname, '..', '..');
  const args = process.argv.slice(2);
  const named = args.filter((arg) => !arg.startsWith('--'));
  const targets = named.length ? PORTAL_TARGETS.filter((target) => named.includes(target.name)) : PORTAL_TARGETS;
  const quiet = args.includes('--quiet');
  try {
    if (targets.length !== named.length && named.length) throw new Error(`build-if-changed: no target among ${named.join(', ')}`);
    buildIfChanged(root, targets, args.includes('--force'), (line) => {
      if (!quiet) console.log(line);
      else if (!line.endsWith('not rebuilt')) console.error(line);
    });
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
