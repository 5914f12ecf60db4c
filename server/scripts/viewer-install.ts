// Installs the OHIF viewer the portal serves under /viewer/ (web/viewer-dist): the prebuilt
// application in the npm package @ohif/app's dist/, fetched with `npm pack` from the npm registry
// and checked against the integrity pinned here. Not an ordinary dependency: the package also
// declares OHIF's whole source tree (React 18, webpack loaders, its own packages at versions the
// registry here does not all have) as dependencies, and the portal needs none of them, only the
// built files. Run by `npm run build` and `npm start` (scripts/build-if-changed.ts) when this file
// or the rewriting rules change, or when the folder is missing.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { x as extract } from 'tar';
import { BOOT_SCRIPT, BOOT_SCRIPT_NAME, DECODE_WORKERS_FILE, isDecodeWorker, LEFT_OUT, rewriteBundle, rewriteIndexHtml, rewriteManifest, rewriteStyleSheet, startupFiles } from '../src/viewer/prepare.js';

export const OHIF_PACKAGE = '@ohif/app@3.13.2';
const OHIF_INTEGRITY = 'sha512-WZdxmpmG7rqFgW9ZJLcbgr3XCtLi1KDNPoMaeY5PPe6j4G4fjEjjkycZM6C6Zk2F87BKxFfpq+jd5xXZB9E8EA==';
const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');
export const VIEWER_DIST = path.join(REPO_ROOT, 'web', 'viewer-dist');

// Text files are sent precompressed (the server's static files are served so): app.bundle.js alone
// is 17 MB, 4 MB gzipped. Brotli at 5 keeps the install's compression under half a minute on two
// cores (at 11 it takes minutes) and still beats gzip.
const COMPRESSIBLE = /\.(js|css|html|json|svg|wasm|map|txt)$/;
const BROTLI_QUALITY = 5;
const MIN_COMPRESS_BYTES = 1024;

async function sha512(file: string): Promise<string> {
  const hash = createHash('sha512');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return `sha512-${hash.digest('base64')}`;
}

function pack(destination: string): string {
  const run = spawnSync('npm', ['pack', OHIF_PACKAGE, '--pack-destination', destination, '--json', '--silent'], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`npm pack ${OHIF_PACKAGE} failed: ${run.stderr.trim() || run.stdout.trim()}`);
  const [answer] = JSON.parse(run.stdout) as { filename: string }[];
  if (!answer) throw new Error(`npm pack ${OHIF_PACKAGE} named no file`);
  return path.join(destination, answer.filename);
}

async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
}

async function rewrite(dir: string, files: string[]): Promise<void> {
  const edit = async (file: string, change: (text: string) => string) => {
    const full = path.join(dir, file);
    await writeFile(full, change(await readFile(full, 'utf8')));
  };
  await edit('index.html', (html) => rewriteIndexHtml(html, startupFiles(files)));
  await edit('manifest.json', rewriteManifest);
  await writeFile(path.join(dir, BOOT_SCRIPT_NAME), BOOT_SCRIPT);
  let bundles = 0;
  const decodeWorkers: string[] = [];
  for (const file of files.filter((f) => !f.includes('/'))) {
    if (file.endsWith('.css')) await edit(file, rewriteStyleSheet);
    if (file.endsWith('.js')) {
      const full = path.join(dir, file);
      const source = await readFile(full, 'utf8');
      if (isDecodeWorker(source)) decodeWorkers.push(file);
      const changed = rewriteBundle(source);
      if (changed !== source) {
        bundles += 1;
        await writeFile(full, changed);
      }
    }
  }
  if (bundles === 0) throw new Error("the viewer's bundles no longer set the public path the install rewrites");
  if (decodeWorkers.length === 0) throw new Error("the viewer's image decoding worker was not found");
  await writeFile(path.join(dir, DECODE_WORKERS_FILE), `${JSON.stringify(decodeWorkers)}\n`);
}

async function precompress(dir: string): Promise<void> {
  const brotli = promisify(brotliCompress);
  const gz = promisify(gzip);
  for (const file of await listFiles(dir)) {
    if (!COMPRESSIBLE.test(file)) continue;
    const full = path.join(dir, file);
    if ((await stat(full)).size < MIN_COMPRESS_BYTES) continue;
    const content = await readFile(full);
    const [br, gzipped] = await Promise.all([
      brotli(content, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: content.length } }),
      gz(content, { level: 9 }),
    ]);
    await writeFile(`${full}.br`, br);
    await writeFile(`${full}.gz`, gzipped);
  }
}

/** Fetches, checks, extracts and prepares the viewer into `target`, replacing what was there only once all went well. */
export async function installViewer(target = VIEWER_DIST): Promise<void> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'portal-viewer-'));
  try {
    const tarball = pack(work);
    const integrity = await sha512(tarball);
    if (integrity !== OHIF_INTEGRITY) throw new Error(`${OHIF_PACKAGE} from the registry is not the one this portal was tested with (integrity ${integrity})`);
    const staging = `${target}.new`;
    await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { recursive: true });
    await extract({
      file: tarball,
      cwd: staging,
      strip: 2,
      filter: (entry) => {
        const inDist = entry.replace(/^package\/dist\//, '');
        return entry.startsWith('package/dist/') && !LEFT_OUT.some((pattern) => pattern.test(inDist));
      },
    });
    const files = await listFiles(staging);
    await rewrite(staging, files);
    await precompress(staging);
    await rm(target, { recursive: true, force: true });
    await rename(staging, target);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

if (import.meta.filename === path.resolve(process.argv[1] ?? '')) {
  const started = Date.now();
  try {
    await installViewer();
    console.log(`viewer: ${OHIF_PACKAGE} installed in ${path.relative(REPO_ROOT, VIEWER_DIST)} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  } catch (error) {
    // The portal runs without its viewer (/viewer/ then says it is not installed): a machine that
    // cannot reach the registry still starts. The next build tries again, as the folder is missing.
    console.warn(`viewer: not installed: ${error instanceof Error ? error.message : String(error)}`);
    // The folder holds the build's fingerprint; without index.html the next build tries again.
    await mkdir(VIEWER_DIST, { recursive: true });
  }
}
