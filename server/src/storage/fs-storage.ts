// Storage in a local directory (the embedded default, DESIGN §3). An object is a file at
// <root>/<key>; bytes are first written to <root>/.tmp, fsynced, then linked into place and the
// directory fsynced, so a key is visible only once its bytes survive a crash (DESIGN §6).
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { access, constants, link, lstat, mkdir, opendir, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { assertValidKey, assertValidPrefix, isValidKey } from './object-key.js';
import { closed, DirectWriteStream } from './direct-write-stream.js';
import { isWellFormed, readTarget, type ByteRange, type ListedObject, type LocalCopy, type ObjectInfo, type PutOptions, type Storage, type SweepOptions } from './storage.js';
import { InvalidKeyError, InvalidRangeError, ObjectExistsError, ObjectNotFoundError, StorageUnavailableError } from './storage-errors.js';

// Numeric descriptors rather than FileHandles: the direct write stream (direct-write-stream.ts)
// writes through one with fs.write, and the same number is then fsynced and closed.
const execFileAsync = promisify(execFile);
const openFd = promisify(fs.open);
const fsyncFd = promisify(fs.fsync);
const closeFd = promisify(fs.close);
const fstatFd = promisify(fs.fstat);
const readFd = promisify(fs.read);

// Medical data: readable by the service account only.
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

const TEMP_DIR_NAME = '.tmp';

export class FsStorage implements Storage {
  readonly root: string;
  readonly #tempDir: string;
  // Directories whose whole path this process has fsynced; directories are never removed.
  readonly #durableDirs = new Set<string>();
  // Directories this process has made or found (not necessarily durable yet).
  readonly #madeDirs = new Set<string>();
  readonly #dirSyncs = new Map<string, DirSync>();
  #tempDirMade = false;

  constructor(root: string) {
    this.root = path.resolve(root);
    this.#tempDir = path.join(this.root, TEMP_DIR_NAME);
  }

  async put(key: string, body: Readable, opts: PutOptions = {}): Promise<ObjectInfo> {
    // The body may fail while the checks below are awaited, before pipeline() listens; without a
    // listener that error would crash the process. pipeline() still sees it through body.errored.
    body.on('error', () => undefined);
    let temp: string | undefined;
    try {
      const target = this.#pathOf(key);
      opts.signal?.throwIfAborted();
      // Refuse before reading a possibly huge body; the link below still guards against a race.
      if (await isPresent(target)) throw new ObjectExistsError(key);
      // Temp files need no durable path: after a crash they are only swept. Made once per process
      // (a mkdir per upload was a visible share of a small upload's cost), and again should it go.
      await this.#ensureTempDir();
      temp = path.join(this.#tempDir, `${randomUUID()}.part`);
      const size = await writeDurably(temp, body, opts.signal).catch(async (err: unknown) => {
        // Only opening the temp file can fail so (before any byte is read): .tmp was removed
        // from outside since it was made; make it again.
        if (!isMissing(err)) throw err;
        this.#tempDirMade = false;
        await this.#ensureTempDir();
        return writeDurably(temp!, body, opts.signal);
      });
      await this.#publish(temp, target, key);
      temp = undefined;
      return { size };
    } catch (err) {
      // The caller handed the body over; leaving it paused would hold its socket open.
      body.destroy();
      if (temp !== undefined) await rm(temp, { force: true });
      // pipeline() wraps the reason in its own AbortError; callers match on what they aborted with.
      if (opts.signal?.aborted) throw opts.signal.reason;
      throw err;
    }
  }

  /**
   * A small upload read whole (at most a few MiB): the same steps as `put` (temp file written,
   * fsynced, closed, linked into place, directory fsynced, temp name removed), but only the two
   * fsyncs go to the thread pool. Each trip to the pool and back (a thread woken, then the loop)
   * cost more CPU than the call itself, and on the pool the creates, links and unlinks of four
   * uploads at once contended for their directory's lock: the pool's threads spent ~1.1 ms a small
   * upload there against ~0.5 ms with only the fsyncs, for no more on this thread
   * (docs/performance.md, "Single uploads, fewer trips to the thread pool"). A directory change
   * can wait for a concurrent fsync's write of that directory: under strace at load 7, creating
   * the temp file took 78 µs at the median, 138 µs at p90 and once 21 ms, the sort of stall SQLite's
   * checkpoints already make on this thread. No existence check first: link() refuses an existing
   * key atomically, and a body already in memory costs nothing to drop.
   */
  async putBytes(key: string, bytes: Uint8Array, opts: PutOptions = {}): Promise<ObjectInfo> {
    const target = this.#pathOf(key);
    opts.signal?.throwIfAborted();
    await this.#ensureTempDir();
    const temp = path.join(this.#tempDir, `${randomUUID()}.part`);
    const durable = opts.durable ?? true;
    try {
      await this.#writeSynced(temp, bytes, durable);
      opts.signal?.throwIfAborted();
      await this.#publish(temp, target, key, { durable, inPlace: true });
    } catch (err) {
      fs.rmSync(temp, { force: true });
      throw err;
    }
    return { size: bytes.length };
  }

  /**
   * Created (never replacing a file), written and closed here; only its fsync waits on the pool.
   * Not durable (copies de-identified in bulk): no fsync, the job's one flush covers them; 2,000
   * fsyncs were 10 of a delivery's 10.3 s of processing here.
   */
  async #writeSynced(temp: string, bytes: Uint8Array, durable: boolean): Promise<void> {
    let fd: number;
    try {
      fd = fs.openSync(temp, 'wx', FILE_MODE);
    } catch (err) {
      // .tmp was removed from outside since it was made: make it again.
      if (!isMissing(err)) throw err;
      this.#tempDirMade = false;
      await this.#ensureTempDir();
      fd = fs.openSync(temp, 'wx', FILE_MODE);
    }
    try {
      for (let at = 0; at < bytes.length; ) at += fs.writeSync(fd, bytes, at, bytes.length - at);
      if (durable) await fsyncFd(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  async putFile(key: string, localPath: string, opts: PutOptions = {}): Promise<ObjectInfo> {
    const target = this.#pathOf(key);
    opts.signal?.throwIfAborted();
    // A link from an extracted archive must never smuggle another file into the store.
    const info = await lstat(localPath);
    if (!info.isFile()) throw new Error(`Not a regular file: ${localPath}`);
    // No existence check first: link() in #publish refuses an existing key atomically.

    const durable = opts.durable ?? true;
    // Extracted entries arrive already private; bulk stores then cost a link and an unlink.
    if (durable || (info.mode & 0o7777) !== FILE_MODE) {
      const fd = await openFd(localPath, 'r');
      try {
        await promisify(fs.fchmod)(fd, FILE_MODE);
        if (durable) await fsyncFd(fd);
      } finally {
        await closeFd(fd);
      }
    }
    try {
      await this.#publish(localPath, target, key, { durable });
    } catch (err) {
      if (errorCode(err) !== 'EXDEV') throw err;
      // Another filesystem: copy through a temp file like any upload, then drop the source.
      const copied = await this.put(key, fs.createReadStream(localPath), opts);
      await rm(localPath, { force: true });
      return copied;
    }
    return { size: info.size };
  }

  /** The object's path and a descriptor open for reading it; not found when there is none. */
  async #openForReading(key: string): Promise<{ file: string; fd: number }> {
    const file = this.#pathOf(key);
    try {
      return { file, fd: await openFd(file, 'r') };
    } catch (err) {
      if (isMissing(err)) throw new ObjectNotFoundError(key);
      throw err;
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    const { file, fd } = await this.#openForReading(key);
    try {
      const info = await fstatFd(fd);
      if (!info.isFile()) throw new ObjectNotFoundError(key);
      if (range !== undefined && !isWithin(range, info.size)) throw new InvalidRangeError(key, info.size);
      // The stream owns the descriptor from here and closes it when it ends or is destroyed.
      return fs.createReadStream(file, { fd, autoClose: true, start: range?.start, end: range?.end });
    } catch (err) {
      await closeFd(fd);
      throw err;
    }
  }

  async getBytes(key: string, range: ByteRange, into?: Uint8Array): Promise<Buffer> {
    const { fd } = await this.#openForReading(key);
    try {
      // No stat first: a range inside the object reads in full, and only one that does not (or a
      // folder, which cannot be read) costs the stat that tells which refusal it is.
      const length = range.end - range.start + 1;
      const bytes = !isWellFormed(range) ? Buffer.alloc(0) : into ? readTarget(into, range) : Buffer.allocUnsafe(length);
      let read = 0;
      if (bytes.length > 0) {
        try {
          for (let got = -1; read < length && got !== 0; read += got) got = (await readFd(fd, bytes, read, length - read, range.start + read)).bytesRead;
        } catch (err) {
          if (errorCode(err) !== 'EISDIR') throw err;
        }
      }
      if (bytes.length === 0 || read < length) {
        const info = await fstatFd(fd);
        if (!info.isFile()) throw new ObjectNotFoundError(key);
        throw new InvalidRangeError(key, info.size);
      }
      return bytes;
    } finally {
      await closeFd(fd);
    }
  }

  /**
   * One filesystem-wide sync (syncfs, through coreutils' `sync -f`) costs about what a single
   * fsync does, where thousands of entries would each pay for their own.
   */
  async flush(): Promise<void> {
    await mkdir(this.root, { recursive: true, mode: DIR_MODE });
    await execFileAsync('sync', ['-f', this.root]);
  }

  openLocal(key: string): Promise<LocalCopy> {
    // Whether the object is there, asked in place: a lookup of a file its caller is about to read
    // (every upload's job asks, moments after storing it), cheaper than a trip to the thread pool.
    try {
      const file = this.#pathOf(key);
      const info = fs.statSync(file, { throwIfNoEntry: false });
      if (info === undefined || !info.isFile()) throw new ObjectNotFoundError(key);
      return Promise.resolve({ path: file, release: () => Promise.resolve() });
    } catch (err) {
      // ENOTDIR: a key under what is an object, not a folder.
      return Promise.reject(isMissing(err) ? new ObjectNotFoundError(key) : (err as Error));
    }
  }

  async stat(key: string): Promise<ObjectInfo | null> {
    try {
      const info = await stat(this.#pathOf(key));
      return info.isFile() ? { size: info.size } : null;
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    const file = this.#pathOf(key);
    try {
      await unlink(file);
    } catch (err) {
      if (isMissing(err)) return;
      throw err;
    }
    await fsyncDir(path.dirname(file));
  }

  async *list(prefix: string): AsyncIterable<ListedObject> {
    assertValidPrefix(prefix);
    const start = prefix === '' ? this.root : path.join(this.root, ...prefix.slice(0, -1).split('/'));
    yield* this.#walk(start, prefix);
  }

  async *#walk(dir: string, keyPrefix: string): AsyncIterable<ListedObject> {
    let handle;
    try {
      handle = await opendir(dir);
    } catch (err) {
      if (isMissing(err)) return;
      throw err;
    }
    // opendir streams entries, so a directory of a million uploads is never held in memory at once.
    for await (const entry of handle) {
      const key = `${keyPrefix}${entry.name}`;
      // Skips .tmp and anything else no put could have made.
      if (!isValidKey(key)) continue;
      if (entry.isDirectory()) {
        yield* this.#walk(path.join(dir, entry.name), `${key}/`);
      } else if (entry.isFile()) {
        try {
          yield { key, size: (await stat(path.join(dir, entry.name))).size };
        } catch (err) {
          // Deleted while listing.
          if (!isMissing(err)) throw err;
        }
      }
    }
  }

  async checkAccess(): Promise<void> {
    try {
      await mkdir(this.root, { recursive: true, mode: DIR_MODE });
      await access(this.root, constants.R_OK | constants.W_OK | constants.X_OK);
    } catch (err) {
      const reason = errorCode(err) === 'ENOSPC' ? 'the disk is full' : 'the service user cannot read and write it';
      throw new StorageUnavailableError(`Cannot use the file store ${this.root}: ${reason}. Check DATA_DIR.`, { cause: err });
    }
  }

  async sweepIncomplete(opts: SweepOptions = {}): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.#tempDir);
    } catch (err) {
      if (isMissing(err)) return 0;
      throw err;
    }
    const cutoff = opts.olderThanMs === undefined ? Infinity : Date.now() - opts.olderThanMs;
    let removed = 0;
    for (const name of names) {
      const leftover = path.join(this.#tempDir, name);
      try {
        if (cutoff !== Infinity && (await lstat(leftover)).mtimeMs > cutoff) continue;
        await rm(leftover, { recursive: true, force: true });
        removed += 1;
      } catch (err) {
        // A put that finished meanwhile has already removed its own temp file.
        if (!isMissing(err)) throw err;
      }
    }
    return removed;
  }

  async #ensureTempDir(): Promise<void> {
    if (this.#tempDirMade) return;
    await mkdir(this.#tempDir, { recursive: true, mode: DIR_MODE });
    this.#tempDirMade = true;
  }

  #pathOf(key: string): string {
    assertValidKey(key);
    const file = path.join(this.root, ...key.split('/'));
    if (!file.startsWith(this.root + path.sep)) throw new InvalidKeyError(key);
    return file;
  }

  /**
   * Gives `source`'s bytes the name `target` without replacing anything, durably, and removes
   * `source`. `inPlace` makes the link and the unlink here rather than on the thread pool (putBytes).
   */
  async #publish(source: string, target: string, key: string, { durable = true, inPlace = false } = {}): Promise<void> {
    const linkOnce = inPlace ? (from: string, to: string) => inPlaceCall(() => fs.linkSync(from, to)) : link;
    const unlinkOnce = inPlace ? (file: string) => inPlaceCall(() => fs.unlinkSync(file)) : unlink;
    const dir = path.dirname(target);
    if (durable) await this.#ensureDurableDir(dir);
    else if (!this.#madeDirs.has(dir)) {
      await mkdir(dir, { recursive: true, mode: DIR_MODE });
      this.#madeDirs.add(dir);
    }
    // rename() would silently replace an existing object; link() fails with EEXIST instead, and
    // atomically, so two puts racing for one key cannot both win.
    try {
      await linkOnce(source, target).catch(async (err: unknown) => {
        // A folder known to exist (so not made again) was removed from outside: make it again.
        if (!durable || errorCode(err) !== 'ENOENT' || !this.#durableDirs.delete(dir)) throw err;
        await this.#ensureDurableDir(dir);
        await linkOnce(source, target);
      });
    } catch (err) {
      const code = errorCode(err);
      if (code === 'EEXIST') throw new ObjectExistsError(key);
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw err;
      // Filesystems without hard links (some network and FUSE mounts): keys are fresh UUIDs, so
      // the check-then-rename window only matters for a caller reusing a key, which is a bug.
      if (await isPresent(target)) throw new ObjectExistsError(key);
      await rename(source, target);
      if (durable) await this.#syncDir(dir);
      return;
    }
    try {
      if (durable) await this.#syncDir(dir);
    } catch (err) {
      await rm(target, { force: true });
      throw err;
    }
    try {
      await unlinkOnce(source);
    } catch {
      // The object is complete and durable; a temp name left behind is swept at next start.
    }
  }

  /**
   * An fsync of `dir` that starts after this call: puts that link into the same directory at the
   * same time (many small uploads in flight) share one, as a database's group commit does, instead
   * of queueing one each on the disk.
   */
  #syncDir(dir: string): Promise<void> {
    let sync = this.#dirSyncs.get(dir);
    if (sync === undefined) {
      sync = { running: null, next: null };
      this.#dirSyncs.set(dir, sync);
    }
    const state = sync;
    const start = (): Promise<void> => {
      const running = fsyncDir(dir).finally(() => {
        state.running = null;
        if (state.next === null) this.#dirSyncs.delete(dir);
      });
      state.running = running;
      return running;
    };
    // One in progress may have begun before this caller's link: this caller waits for the next.
    if (state.running === null) return start();
    state.next ??= state.running
      .catch(() => undefined)
      .then(() => {
        state.next = null;
        return start();
      });
    return state.next;
  }

  /**
   * mkdir -p, then fsync every directory from the parent of `dir` up to the one holding the root,
   * so the path to a new object survives a crash. A put that finds the directory already there
   * still syncs unless this process has synced that path before: the put that created it may not
   * have reached its own fsync yet.
   */
  async #ensureDurableDir(dir: string): Promise<void> {
    // Directories are never removed, so one this process made durable needs no mkdir either.
    if (this.#durableDirs.has(dir)) return;
    await mkdir(dir, { recursive: true, mode: DIR_MODE });
    const top = path.dirname(this.root);
    for (let d = path.dirname(dir); ; d = path.dirname(d)) {
      await fsyncDir(d);
      if (d === top || d === path.dirname(d)) break;
    }
    this.#durableDirs.add(dir);
  }
}

/** The fsync of one directory in progress, and the one queued to start after it. */
interface DirSync {
  running: Promise<void> | null;
  next: Promise<void> | null;
}

async function writeDurably(file: string, body: Readable, signal: AbortSignal | undefined): Promise<number> {
  const fd = await openFd(file, 'wx', FILE_MODE);
  // Full blocks around the page cache, the rest through `fd` (direct-write-stream.ts): the fsync
  // below then has only the last block and the file's metadata left to write.
  const out = new DirectWriteStream(file, { fd });
  try {
    await pipeline(body, out, signal ? { signal } : {});
    await fsyncFd(fd);
    return out.bytesWritten;
  } finally {
    await closed(out);
    // The bytes are durable or the put has already failed; a close error changes neither.
    await closeFd(fd).catch(() => undefined);
  }
}

/** A synchronous call as a promise: what it throws rejects it, as its asynchronous twin would. */
function inPlaceCall(call: () => void): Promise<void> {
  return new Promise((resolve) => {
    call();
    resolve();
  });
}

/** Opening and closing a directory are lookups in memory: only the fsync goes to the thread pool. */
async function fsyncDir(dir: string): Promise<void> {
  const fd = fs.openSync(dir, 'r');
  try {
    await fsyncFd(fd);
  } finally {
    fs.closeSync(fd);
  }
}

async function isPresent(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch (err) {
    if (isMissing(err)) return false;
    throw err;
  }
}

function isWithin(range: ByteRange, size: number): boolean {
  return isWellFormed(range) && range.end < size;
}

function errorCode(err: unknown): string | undefined {
  return err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

// ENOTDIR: a key whose parent is itself an object, e.g. 'uploads/x/y' when 'uploads/x' is a file.
function isMissing(err: unknown): boolean {
  const code = errorCode(err);
  return code === 'ENOENT' || code === 'ENOTDIR';
}
