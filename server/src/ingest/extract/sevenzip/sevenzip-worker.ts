// Runs 7-Zip (WebAssembly), and the native zip and tar paths, off the main thread. 7-Zip's calls are
// synchronous and can run for minutes, and a stop from the write guard unwinds through
// WebAssembly, leaving that instance unusable: so each request gets a fresh instance, and the
// job's thread can terminate us at once. Started as a process rather than a thread, this module
// is the 7-Zip process (sevenzip-process.ts), which runs it again as its thread.
import { parentPort, type MessagePort } from 'node:worker_threads';
import path from 'node:path';
import { createHash, type Hash } from 'node:crypto';
import SevenZipCjs, { type FSStream, type SevenZipModule } from '7z-wasm';
import { EntryAnalyzer } from '../../entry-analysis.js';
import { extractNativeZip } from '../zip/zip-extract.js';
import { extractNativeTar } from '../tar/tar-extract.js';
import { ListingParser, unpackEntries, type ListedEntry, type PackedEntries } from './sevenzip-listing.js';
import { normalizeEntryPath } from '../../entry-path.js';
import { erroredName } from './sevenzip-errors.js';
import { relayToThread } from './sevenzip-process.js';
import type {
  ExtractRequest,
  ExtractResult,
  ListRequest,
  ListResult,
  SettledFile,
  StopReason,
  WorkerReply,
  WasmModule,
  WorkerRequest,
} from './sevenzip-protocol.js';

// A CommonJS module whose typings describe an ES default export: the factory is `.default` either way.
const SevenZipFactory = SevenZipCjs.default;

const IN = '/in';
const OUT = '/out';
const MAX_ERROR_LINES = 10_000;
// Emscripten's errno numbering (not Linux's).
const EPERM = 63;
const EACCES = 2;

class GuardStop extends Error {
  constructor(
    readonly reason: StopReason,
    readonly entry: string | null,
  ) {
    super(`write guard: ${reason}`);
  }
}

/** The run has written every file it was asked for: what follows is past the listing's cap. */
class SelectionDone extends Error {
  constructor() {
    super('every listed file written');
  }
}

function errnoError(errno: number): Error {
  // Emscripten turns an error named ErrnoError into a failed system call instead of a crash.
  return Object.assign(new Error(`errno ${errno}`), { name: 'ErrnoError', errno });
}

class LineSplitter {
  private bytes: number[] = [];
  constructor(private readonly onLine: (line: string) => void) {}
  push(byte: number | null): void {
    if (byte === null) return;
    if (byte === 10) this.flush();
    else if (byte !== 13) this.bytes.push(byte);
  }
  flush(): void {
    const line = Buffer.from(this.bytes).toString('utf8');
    this.bytes = [];
    this.onLine(line);
  }
}

// The server compiles without the DOM library, and @types/node declares no WebAssembly functions;
// these are all we use.
type WasmInstance = object;
const Wasm = (globalThis as unknown as {
  WebAssembly: { instantiate(module: WasmModule, imports: object): Promise<WasmInstance> };
}).WebAssembly;

/**
 * 7-Zip arrives compiled, as the first message: the job's thread compiles it once per process and
 * V8 shares the machine code (and its optimised tier) between all the workers it is sent to.
 * Each request still instantiates it afresh (milliseconds).
 */
let receiveWasm: (module: WasmModule) => void = () => undefined;
const compiled = new Promise<WasmModule>((resolve) => (receiveWasm = resolve));

type InstantiateWasm = (imports: object, receive: (instance: WasmInstance, module: WasmModule) => void) => object;

/** A 7-Zip instance whose output lines go to whichever reader is set last. */
interface Instance {
  module: SevenZipModule;
  onLine: (line: string) => void;
}

async function instance(onLine: (line: string) => void): Promise<Instance> {
  const created: Partial<Instance> = { onLine };
  const out = new LineSplitter((line) => created.onLine!(line));
  const err = new LineSplitter((line) => created.onLine!(line));
  const wasm = await compiled;
  const instantiateWasm: InstantiateWasm = (imports, receive) => {
    Wasm.instantiate(wasm, imports).then(
      (made) => receive(made, wasm),
      // The factory would wait forever: crash the worker instead, which fails the job's pending calls.
      (error: unknown) => setImmediate(() => {
        throw error;
      }),
    );
    return {};
  };
  const options = { stdout: (c: number) => out.push(c), stderr: (c: number) => err.push(c), instantiateWasm };
  created.module = await SevenZipFactory(options);
  return created as Instance;
}

/**
 * The instance that listed an archive, kept for its extraction, which is the next request: its
 * WebAssembly memory (~17 MB for 7-Zip's database of a 100,000-entry 7z) never shrinks, and a
 * second instance beside it would double that until the worker's next full collection. Only a
 * run that ended cleanly leaves one; any other request drops it.
 */
let listedBy: { archive: string; format: string; instance: Instance; entries: PackedEntries } | null = null;

function takeListed(archive: string, format: string): { instance: Instance; entries: PackedEntries } | null {
  const kept = listedBy;
  listedBy = null;
  return kept !== null && kept.archive === archive && kept.format === format ? kept : null;
}

/**
 * The sizes the listing states, for the guard. Built here rather than sent by the job: an object of
 * 100,000 sizes took the job's thread hundreds of milliseconds to build and to post. 7-Zip writes
 * the files of a run of every listed entry in listing order, so each is the next listed entry,
 * read without a map of them all; only if a name differs are they all looked up by name.
 */
class ListedSizes {
  readonly #next: Generator<ListedEntry>;
  #byName: Map<string, number> | null = null;

  constructor(private readonly entries: PackedEntries) {
    this.#next = unpackEntries(entries);
  }

  /** The stated size of the file 7-Zip opens next, named `rel`. */
  next(rel: string): number | undefined {
    if (this.#byName === null) {
      const entry = this.#next.next();
      const normalized = entry.done === true ? null : normalizeEntryPath(entry.value.rawPath);
      if (normalized?.ok === true && normalized.path === rel) return (entry.value as ListedEntry).size ?? undefined;
      this.#byName = new Map();
      // The first entry of a path wins, as in the plan.
      for (const listed of unpackEntries(this.entries)) {
        const name = normalizeEntryPath(listed.rawPath);
        if (name.ok && listed.size !== null && !this.#byName.has(name.path)) this.#byName.set(name.path, listed.size);
      }
    }
    return this.#byName.get(rel);
  }
}

function mountDir(module: SevenZipModule, hostDir: string, at: string): void {
  module.FS.mkdir(at);
  module.FS.mount(module.NODEFS, { root: hostDir }, at);
}

function describeCrash(_error: unknown): string {
  // 7-Zip's C++ exceptions reach JavaScript as bare numbers (pointers), which mean nothing to a
  // person, and its other failures name its internals. Either way the archive's structure is broken.
  return 'its structure could not be read';
}

function run(module: SevenZipModule, args: string[]): { exitCode: number | null; thrown: unknown } {
  try {
    const code = module.callMain(args) as unknown;
    return { exitCode: typeof code === 'number' ? code : null, thrown: undefined };
  } catch (thrown) {
    return { exitCode: null, thrown };
  }
}

const COMMON = ['-bsp0', '-bb0', '-y', '-p', '-sccUTF-8'];

async function list(request: ListRequest): Promise<ListResult> {
  listedBy = null;
  const parser = new ListingParser(request.cap);
  const made = await instance((line) => parser.push(line));
  const { module } = made;
  mountDir(module, path.dirname(request.archive), IN);
  const { exitCode, thrown } = run(module, [
    'l',
    '-slt',
    ...COMMON,
    `-t${request.format}`,
    `${IN}/${path.basename(request.archive)}`,
  ]);
  const listing = parser.finish();
  if (thrown === undefined) listedBy = { archive: request.archive, format: request.format, instance: made, entries: listing.entries };
  return { exitCode, listing, crash: thrown === undefined ? null : describeCrash(thrown) };
}

function isWriteFlags(flags: unknown): boolean {
  if (typeof flags === 'string') return /[wa+]/.test(flags);
  return typeof flags === 'number' && (flags & 3) !== 0;
}

/**
 * Every byte 7-Zip writes passes here, so limits hold even when an archive's headers lie about
 * sizes; links and special files are refused at the file-system layer, whatever the listing said.
 */
interface OpenFile {
  rel: string;
  bytes: number;
  hash: Hash | null;
  /** The size the listing states; more bytes than this means the header lied. */
  expected: number | undefined;
}

interface Settler {
  /** Called when a file is final (the next one opens, or the run ends). */
  settle(file: { rel: string; sha256: string | null }): void;
  /** Sends the files settled so far at once: the run is about to wait for the job. */
  send(): void;
}

/**
 * Drops a settled file's node from Emscripten's name table, where every path 7-Zip touched would
 * otherwise stay for the life of the instance: 100,000 extracted files held ~30 MB of the worker's
 * heap. 7-Zip is done with the file (times and mode set) once the next one opens.
 */
function forget(module: SevenZipModule, file: string): void {
  const fs = module.FS as unknown as { lookupPath(p: string, opts: object): { node: object }; hashRemoveNode(node: object): void };
  try {
    fs.hashRemoveNode(fs.lookupPath(file, { follow: false }).node);
  } catch {
    // Already gone (moved into storage by the job): nothing is cached.
  }
}

/** Waits while the run has opened as many files as the job allows; `beforeWait` sends what is settled. */
function waitForCredit(credit: Int32Array, opened: number, beforeWait: () => void): void {
  for (let allowed = Atomics.load(credit, 0); opened >= allowed; allowed = Atomics.load(credit, 0)) {
    beforeWait();
    // Timed, so that a lost wake-up costs a second and not the job.
    Atomics.wait(credit, 0, allowed, 1000);
  }
}

function guardFileSystem(
  module: SevenZipModule,
  request: ExtractRequest,
  result: ExtractResult,
  settler: Settler,
  sizes: ListedSizes | null,
): { flush: () => void } {
  const fs = module.FS;
  const { guard } = request;
  const written = new Map<FSStream, OpenFile>();
  let closed: { rel: string; sha256: string | null } | null = null;
  let opened = 0;
  const flush = (): void => {
    if (closed === null) return;
    settler.settle(closed);
    forget(module, `${OUT}/${closed.rel}`);
    closed = null;
  };
  const open = fs.open.bind(fs);
  const write = fs.write.bind(fs);
  const close = fs.close.bind(fs);
  const mknod = (fs as unknown as { mknod: (p: string, mode: number, dev: number) => unknown }).mknod.bind(fs);

  fs.open = (p: string, flags: string, mode?: number, ...rest: number[]) => {
    const writing = isWriteFlags(flags);
    if (writing && !p.startsWith(`${OUT}/`)) throw errnoError(EACCES);
    if (writing) {
      flush();
      if (request.stopAfterFiles !== undefined && opened >= request.stopAfterFiles) throw new SelectionDone();
      if (request.credit !== undefined) waitForCredit(request.credit, opened, () => settler.send());
      opened += 1;
    }
    const stream = open(p, flags, mode, ...rest);
    if (writing) {
      const rel = p.slice(OUT.length + 1);
      written.set(stream, { rel, bytes: 0, hash: createHash('sha256'), expected: guard.expectedSizes[rel] ?? sizes?.next(rel) });
    }
    return stream;
  };
  fs.write = (stream: FSStream, buffer: ArrayBufferView, offset: number, length: number, position?: number, canOwn?: boolean) => {
    const file = written.get(stream);
    if (file !== undefined) {
      const after = file.bytes + length;
      if (guard.maxEntryBytes !== null && after > guard.maxEntryBytes) throw new GuardStop('entry-too-large', file.rel);
      if (file.expected !== undefined && after > file.expected) throw new GuardStop('header-lied', file.rel);
      if (result.written + length > guard.budgetBytes) throw new GuardStop(guard.budgetReason, file.rel);
      // Hashing here spares the job a second read; a write out of order makes the hash unusable.
      if (position !== undefined && position !== file.bytes) file.hash = null;
      file.hash?.update(new Uint8Array(buffer.buffer, buffer.byteOffset + offset, length));
      file.bytes = after;
      result.written += length;
    }
    return write(stream, buffer, offset, length, position, canOwn);
  };
  fs.close = (stream: FSStream) => {
    const file = written.get(stream);
    close(stream);
    if (file !== undefined) {
      written.delete(stream);
      if (request.settledOnly !== true) result.completed.push(file.rel);
      closed = { rel: file.rel, sha256: file.hash?.digest('hex') ?? null };
    }
  };
  fs.symlink = () => {
    throw errnoError(EPERM);
  };
  (fs as unknown as { mknod: typeof mknod }).mknod = (p: string, mode: number, dev: number) => {
    const type = mode & 0o170000;
    if (type !== 0o040000 && type !== 0o100000) throw errnoError(EPERM);
    // Files are created as storage keeps them (owner only), so storing one is a rename and no chmod.
    return mknod(p, type === 0o100000 ? type | 0o600 : mode, dev);
  };
  // Archive modes (000, setuid…) would only get in the way of reading and deleting what we keep.
  fs.chmod = () => undefined;
  fs.fchmod = () => undefined;
  fs.lchmod = () => undefined;
  return { flush };
}

async function extract(request: ExtractRequest, post: (file: SettledFile) => void, send: () => void): Promise<ExtractResult> {
  const result: ExtractResult = { exitCode: null, errors: [], completed: [], stop: null, crash: null, written: 0 };
  let inErrorBlock = false;
  const failed = new Set<string>();
  const onLine = (line: string): void => {
    if (line === 'ERRORS:') inErrorBlock = true;
    else if (line === '' || line.includes(' = ')) inErrorBlock = false;
    const isError = inErrorBlock || line.startsWith('ERROR:') || line.startsWith('Open ERROR:');
    if (isError && line !== 'ERRORS:' && result.errors.length < MAX_ERROR_LINES) result.errors.push(line);
    const name = erroredName(line);
    if (name !== null) failed.add(name);
  };
  const listed = takeListed(request.archive, request.format);
  // Checked before anything is written: without the sizes, the guard could not tell a lying header.
  if (request.sizesFromListing === true && listed === null) throw new Error('the listing of this archive is no longer held');
  const sizes = request.sizesFromListing === true ? new ListedSizes(listed!.entries) : null;
  const { module } = listed?.instance ?? (await instance(onLine));
  if (listed === null) mountDir(module, path.dirname(request.archive), IN);
  else listed.instance.onLine = onLine;
  mountDir(module, request.outDir, OUT);
  const args = ['x', ...COMMON, '-aos', '-spd', `-t${request.format}`, `-o${OUT}`];
  if (request.include !== null) {
    module.FS.writeFile('/include.txt', request.include.join('\n') + '\n');
    args.push('-scsUTF-8', '-i@/include.txt');
  }
  args.push(`${IN}/${path.basename(request.archive)}`);
  const analyzer = new EntryAnalyzer(request.outDir, request.maxDicomHeaderBytes);
  const { flush } = guardFileSystem(module, request, result, {
    settle: (file) => {
      const fileFailed = failed.has(file.rel);
      post({ ...file, failed: fileFailed, analysis: fileFailed ? null : analyzer.analyze(file.rel), inPlaceAt: null });
    },
    send,
  }, sizes);
  const { exitCode, thrown } = run(module, args);
  flush();
  result.exitCode = exitCode;
  if (thrown instanceof GuardStop) result.stop = { reason: thrown.reason, path: thrown.entry };
  else if (thrown !== undefined && !(thrown instanceof SelectionDone)) result.crash = describeCrash(thrown);
  if (thrown instanceof SelectionDone) result.exitCode = 0;
  return result;
}

/** Settled files sent together: at most this many, or once this many of their bytes are waiting. */
const BATCH_FILES = 64;
const BATCH_BYTES = 1024 ** 2;

/**
 * One message per settled file cost the job's thread a message to receive and free per entry:
 * 100,000 tiny entries made 100,000 of them. A batch goes as soon as it holds a megabyte of entries,
 * so the job never waits long for files that are ready; the rest go before the run's answer.
 */
class SettledBatch {
  private files: SettledFile[] = [];
  private bytes = 0;

  constructor(private readonly send: (files: SettledFile[]) => void) {}

  readonly add = (file: SettledFile): void => {
    this.files.push(file);
    this.bytes += file.analysis?.size ?? 0;
    if (this.files.length >= BATCH_FILES || this.bytes >= BATCH_BYTES) this.flush();
  };

  flush(): void {
    if (this.files.length === 0) return;
    this.send(this.files);
    this.files = [];
    this.bytes = 0;
  }
}

function serve(port: MessagePort): void {
  port.on('message', (request: WorkerRequest | { wasm: WasmModule }) => {
    if ('wasm' in request) {
      receiveWasm(request.wasm);
      return;
    }
    // The instance a listing left is for the extraction that follows it, and for nothing else.
    if (request.op !== 'extract' && request.op !== 'list') listedBy = null;
    const batch = new SettledBatch((settled) => port.postMessage({ id: request.id, settled } satisfies WorkerReply));
    const work =
      request.op === 'list'
        ? list(request)
        : request.op === 'native-zip'
          ? extractNativeZip(request, batch.add)
          : request.op === 'native-tar'
            ? extractNativeTar(request, batch.add)
            : extract(request, batch.add, () => batch.flush());
    work.then(
      (result) => {
        batch.flush();
        // A listing's arrays are copied (~17 bytes an entry): the worker keeps them for the extraction.
        port.postMessage({ id: request.id, ok: true, result } satisfies WorkerReply);
      },
      (error: unknown) => {
        batch.flush();
        port.postMessage({ id: request.id, ok: false, error: describeCrash(error) } satisfies WorkerReply);
      },
    );
  });
}

if (parentPort !== null) serve(parentPort);
else relayToThread();
