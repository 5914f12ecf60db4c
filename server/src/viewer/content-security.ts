// The viewer's Content-Security-Policy: the portal's own (http/security-headers.ts), with only the
// sources OHIF cannot run without added, on /viewer/ alone. docs/architecture.md says why each.
const CSP = 'content-security-policy';

/** Sources added to the portal's directives for the viewer's pages and files. */
export const VIEWER_ADDITIONS: Record<string, string[]> = {
  // The image codecs (JPEG, JPEG-LS, JPEG 2000, HTJ2K) are WebAssembly, compiled in the page and
  // its workers: without it no compressed image is decoded. It allows compiling WebAssembly only,
  // not eval of JavaScript.
  'script-src': ["'wasm-unsafe-eval'"],
  // The decoders and the image loader run in workers; some are started from blob: URLs that OHIF's
  // bundles create from their own code.
  'worker-src': ["'self'", 'blob:'],
};

/** Added for the image decoding worker's script only (prepare.ts, isDecodeWorker). */
export const DECODE_WORKER_ADDITIONS: Record<string, string[]> = {
  // A worker runs under the policy its own script was served with. OpenJPEG's JavaScript bindings
  // (emscripten embind) build functions with `new Function`: without it no JPEG 2000 image is
  // decoded. The worker has no page to reach, and gets only pixel data to decode.
  'script-src': ["'unsafe-eval'"],
};

function parse(policy: string): Map<string, string[]> {
  const directives = new Map<string, string[]>();
  for (const part of policy.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) directives.set(name, sources);
  }
  return directives;
}

/** The portal's policy with the viewer's additions; every other directive is kept as it was. */
export function viewerPolicy(policy: string, decodeWorker = false): string {
  const directives = parse(policy);
  const additions = Object.entries(VIEWER_ADDITIONS);
  if (decodeWorker) additions.push(...Object.entries(DECODE_WORKER_ADDITIONS));
  for (const [name, sources] of additions) {
    const current = directives.get(name) ?? [];
    directives.set(name, [...current, ...sources.filter((source) => !current.includes(source))]);
  }
  return [...directives].map(([name, sources]) => [name, ...sources].join(' ')).join(';');
}

export { CSP as CSP_HEADER };
