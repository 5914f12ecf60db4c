// OHIF's prebuilt application (the npm package @ohif/app, its dist/) is built to be served at `/`:
// its page, its style sheet and its bundles' chunk loader name every file from the root. The portal
// serves it under /viewer/ beside its own app, so these few absolute paths are rewritten once, when
// the viewer is installed (scripts/viewer-install.ts), rather than by building OHIF here. Each rule
// checks that it found what it rewrites: a new OHIF release that moved them fails the install with
// a reason instead of serving a blank page.

/** Where the portal serves the viewer; every rewritten path starts with it. */
export const VIEWER_BASE = '/viewer/';

/** The script that replaces index.html's inline ones (the CSP runs no inline script). */
export const BOOT_SCRIPT_NAME = 'public-url.js';

/** What OHIF's two inline scripts did: its public URL, and a dynamic import its plugin loader calls. */
export const BOOT_SCRIPT = `// Written by the portal's viewer install (server/src/viewer/prepare.ts) in place of OHIF's inline scripts.
window.PUBLIC_URL = '${VIEWER_BASE}';
function browserImportFunction(moduleId) {
  return import(moduleId);
}
`;

const INLINE_SCRIPT = /<script>([^<]*)<\/script>/g;
const ROOT_ATTRIBUTE = /\b(href|src|content)="\/(?!\/)/g;

function mustChange(before: string, after: string, what: string): string {
  if (before === after) throw new Error(`the viewer's ${what} no longer has the paths the install rewrites`);
  return after;
}

/**
 * The chunks OHIF loads on every start before its first DICOMweb request, by webpack chunk id, in
 * the order it asks for them. It finds them in waves, each only once the one before has run: its
 * built-in extensions' shared libraries, then its modes, then the extensions the modes name. Named
 * in its page as preloads, they are fetched, and parsed off the main thread, while app.bundle (17 MB)
 * runs, instead of a wave at a time after it; their style sheets (unhashed names, so revalidated on
 * each open) are asked for then too, not one round trip per wave. The viewer's e2e test checks that
 * OHIF fetches no chunk before its first DICOMweb request that is not named here.
 */
export const STARTUP_CHUNKS: readonly string[] = [
  // The libraries its three built-in extensions (default, cornerstone, ultrasound) share.
  '1673', '6938', '6489', '6495', '8478', '89', '6214', '2779', '2623',
  // Its seven modes.
  '6749', '5696', '1483', '9383', '7499', '8492', '9290', '4683', '1180',
  // The extensions its modes name (measurement tracking, SR, SEG, parametric maps, RT, PDF, video, …).
  '7248', '3833', '781', '9415', '3500', '9116', '100', '5406', '3760', '5910', '7463', '9068', '899', '5448', '1206',
];

/** The files of the startup chunks among the package's: a chunk's script, its style sheet, or both. */
export function startupFiles(files: readonly string[]): string[] {
  return STARTUP_CHUNKS.flatMap((id) => {
    const script = new RegExp(`^${id}\\.bundle\\.[0-9a-f]{16}\\.js$`);
    const found = files.filter((file) => file === `${id}.css` || script.test(file));
    if (found.length === 0) throw new Error(`the viewer's startup chunk ${id} is no longer in the package`);
    return found;
  });
}

function preloadLink(file: string): string {
  return `<link rel="preload" as="${file.endsWith('.css') ? 'style' : 'script'}" href="${VIEWER_BASE}${file}">`;
}

/**
 * index.html: its inline scripts become one script file, its links point under /viewer/, and the
 * `preload` files (startupFiles) are named after its own scripts, so app.bundle is asked for first.
 */
export function rewriteIndexHtml(html: string, preload: readonly string[] = []): string {
  const inline = [...html.matchAll(INLINE_SCRIPT)];
  if (!inline.some((match) => match[1]!.includes('window.PUBLIC_URL'))) {
    throw new Error("the viewer's index.html no longer sets window.PUBLIC_URL in an inline script");
  }
  let first = true;
  const withoutInline = html.replace(INLINE_SCRIPT, () => {
    if (!first) return '';
    first = false;
    return `<script src="/${BOOT_SCRIPT_NAME}"></script>`;
  });
  const rewritten = mustChange(withoutInline, withoutInline.replace(ROOT_ATTRIBUTE, `$1="${VIEWER_BASE}`), 'index.html');
  if (preload.length === 0) return rewritten;
  return mustChange(rewritten, rewritten.replace('</head>', `${preload.map(preloadLink).join('')}</head>`), 'index.html');
}

const PUBLIC_PATH = '__webpack_require__.p = "/";';

/** A bundle's chunk loader: chunks, workers and WASM files are fetched from its public path. */
export function rewriteBundle(source: string): string {
  return source.includes(PUBLIC_PATH) ? source.replaceAll(PUBLIC_PATH, `__webpack_require__.p = "${VIEWER_BASE}";`) : source;
}

/** Style sheets name their fonts from the root. */
export function rewriteStyleSheet(css: string): string {
  return css.replace(/url\(\/(?!\/)/g, `url(${VIEWER_BASE}`);
}

/** The web app manifest names its icons from the root. */
export function rewriteManifest(json: string): string {
  return json.replace(/"(src|start_url)": "\/(?!\/)/g, `"$1": "${VIEWER_BASE}`);
}

/**
 * Files of the package the portal does not serve: its default configuration (the portal answers
 * app-config.js itself), other hosts' settings and deploy files, a service worker whose precache
 * list names root paths, and ONNX Runtime (136 MB for the AI segmentation tools, whose models come
 * from the internet: a portal cannot reach them, and its CSP would not let it).
 */
export const LEFT_OUT = [/^app-config\.js$/, /^_headers$/, /^_redirects$/, /^serve\.json$/, /^google\.js$/, /^sw\.js(\.map)?$/, /^ort\//];

/**
 * The image loader's decoding worker: the bundle that runs OHIF's decodeTask inside a worker
 * (it loads its chunks with importScripts). Its OpenJPEG codec's C++ bindings (emscripten's embind)
 * build functions with `new Function`, so this worker alone is served with 'unsafe-eval'
 * (content-security.ts); the page and every other script keep the portal's script-src.
 */
export function isDecodeWorker(source: string): boolean {
  return source.includes('decodeTask') && source.includes('importScripts(');
}

/** What the install found, for the server: written beside the files as DECODE_WORKERS_FILE. */
export const DECODE_WORKERS_FILE = 'decode-workers.json';
