// The steps of a layer of many entries, each on its own, on archives written by bsdtar and 7-Zip
// (and made to lie or break on purpose where a step is about that): the budget spent mid-layer,
// reruns after an entry proves larger than its header, the hand-over in archive order whatever
// order entries finish in, and a layer that is cut short or damaged.
import { appendFile, lstat, mkdir, readdir, readFile, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { understate } from '../../../test/ingest/archive-writers.js';
import { DICOM_DIR, sh, tempDir } from '../../../test/ingest/helpers.js';
import type { ArchiveKind } from '../detect/detect-kind.js';
import { resolveLimits, type IngestLimits } from '../limits.js';
import { SKIP } from '../skip-reasons.js';
import { extractLayer } from './extract-layer.js';
import { handOver } from './hand-over.js';
import { planLayer } from './layer-plan.js';
import { LayerRun, type Window } from './layer-run.js';
import type { LayerInput, LayerItem, Outcome } from './layer-types.js';
import type { PlanItem } from './plan-entries.js';
import { planWindows } from './plan-windows.js';
import { produceWindows } from './produce-windows.js';
import { runThrough } from './run-through.js';
import { RunTally } from './run-tally.js';
import { SevenZipWorker } from './sevenzip/sevenzip-client.js';
import { extractWindow } from './window-runs.js';

const workers: SevenZipWorker[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(workers.splice(0).map((w) => w.close()));
});

async function layerInput(archive: string, kind: ArchiveKind, limits: Partial<IngestLimits> = {}): Promise<LayerInput> {
  const resolved = resolveLimits(limits);
  const sevenZip = new SevenZipWorker();
  workers.push(sevenZip);
  const outDir = path.join(path.dirname(archive), 'out');
  await mkdir(outDir);
  return {
    archive,
    kind,
    outDir,
    limits: resolved,
    budget: { remainingBytes: resolved.maxTotalBytes, remainingEntries: resolved.maxEntries },
    seeEntries: () => undefined,
    sevenZip,
    secondSevenZip: null,
    // Every entry is written out, so what a step leaves on disk can be seen.
    inPlace: false,
  };
}

/** The layer's state as extractMany makes it, after its plan. */
async function layerRun(archive: string, kind: ArchiveKind, limits: Partial<IngestLimits> = {}): Promise<LayerRun> {
  const input = await layerInput(archive, kind, limits);
  const plan = await planLayer(input);
  if ('ok' in plan) throw new Error(plan.error);
  return new LayerRun(input, plan, (await stat(archive)).size);
}

async function windowsOf(run: LayerRun, entries = 2000): Promise<Window[]> {
  const windows: Window[] = [];
  for await (const window of planWindows<Outcome>(run.plan.items(), { entries, bytes: 1e12 })) windows.push(window);
  return windows;
}

/** What was decided about each planned entry of a window whose runs are over. */
async function decided(window: Window): Promise<Record<string, string>> {
  window.outcomes.end();
  const seen: Record<string, string> = {};
  for (const p of window.include.keys()) {
    const outcome = await window.outcomes.next(p);
    seen[p] = outcome === undefined ? 'undecided' : outcome.state === 'done' ? 'done' : outcome.reason;
  }
  return seen;
}

const shown = (items: readonly LayerItem[]) => items.map((item) => [item.path, item.type === 'skipped' ? item.reason : item.type]);

async function files(dir: string): Promise<string[]> {
  return (await readdir(dir)).sort();
}

/** a.dcm, then `liars` (entries of 200 KB of zeros whose zip directory says 1,000 bytes), then z.txt. */
async function lyingZip(liars: readonly string[], tool: 'bsdtar' | '7zz-bzip2' = 'bsdtar'): Promise<string> {
  const dir = await tempDir();
  await sh(`cp '${DICOM_DIR}/s01_CT_small.dcm' a.dcm && echo last > z.txt`, dir);
  for (const name of liars) await sh(`head -c 200000 /dev/zero > ${name}`, dir);
  const names = ['a.dcm', ...liars, 'z.txt'].join(' ');
  // A bzip2 zip is one the native path declines: 7-Zip reads it.
  await sh(tool === 'bsdtar' ? `bsdtar --format zip -cf honest.zip ${names}` : `7zz a -bso0 -tzip -mm=BZip2 honest.zip ${names}`, dir);
  let zip: Buffer = await readFile(path.join(dir, 'honest.zip'));
  for (const name of liars) zip = understate(zip, name, 1000);
  await writeFile(path.join(dir, 'lying.zip'), zip);
  return path.join(dir, 'lying.zip');
}

describe('the tally of a layer’s runs', () => {
  it('stops a run when the upload’s bytes are spent: the file being written is skipped for that reason and removed, the one before stands', async () => {
    const dir = await tempDir();
    await sh('head -c 100000 /dev/urandom > a.bin && head -c 100000 /dev/urandom > b.bin && head -c 100000 /dev/urandom > c.bin', dir);
    await sh('bsdtar --format zip -cf r.zip a.bin b.bin c.bin', dir);
    const input = await layerInput(path.join(dir, 'r.zip'), 'zip');
    input.budget.remainingBytes = 150_000;
    const tally = new RunTally(input, (await stat(input.archive)).size, false);
    const guard = tally.guard({ 'a.bin': 100_000, 'b.bin': 100_000, 'c.bin': 100_000 });
    expect(guard).toMatchObject({ budgetBytes: 150_000, budgetReason: 'total' });
    const result = await input.sevenZip.extract({ archive: input.archive, format: 'zip', outDir: input.outDir, include: null, guard, maxDicomHeaderBytes: 1 << 20 });
    const outcomes: Record<string, string> = {};
    const stop = await tally.account(result, (p, o) => (outcomes[p] ??= o.state === 'done' ? 'done' : o.reason));
    expect(stop).toBe('total');
    expect(outcomes).toEqual({ 'a.bin': 'done', 'b.bin': SKIP.totalSize });
    expect(await files(input.outDir)).toEqual(['a.bin']);
    // What was written is gone from the upload's budget and from the layer's next run.
    expect(tally.written).toBe(result.written);
    expect(input.budget.remainingBytes).toBe(150_000 - result.written);
    expect(tally.guard({}).budgetBytes).toBe(150_000 - result.written);
    // 7-Zip stopped by the guard exits without a code: that is the budget, not a cut archive.
    expect(tally.truncated).toBe(false);
  });

  it('says the layer is truncated after a run that ended in damage, and skips the entry 7-Zip named as corrupt', async () => {
    const dir = await tempDir();
    await sh(`cp '${DICOM_DIR}/s01_CT_small.dcm' a.dcm && head -c 300000 /dev/urandom > b.bin && echo last > c.txt`, dir);
    await sh('7zz a -bso0 -bsp0 -ms=off d.7z a.dcm b.bin c.txt', dir);
    // Non-solid: each entry has its own stream; bytes flipped in the middle of b.bin's.
    const archive = await readFile(path.join(dir, 'd.7z'));
    archive.fill(0x5a, 150_000, 150_064);
    await writeFile(path.join(dir, 'd.7z'), archive);
    const input = await layerInput(path.join(dir, 'd.7z'), '7z');
    const tally = new RunTally(input, archive.length, false);
    const result = await input.sevenZip.extract({ archive: input.archive, format: '7z', outDir: input.outDir, include: null, guard: tally.guard({}), maxDicomHeaderBytes: 1 << 20 });
    const outcomes: Record<string, string> = {};
    expect(await tally.account(result, (p, o) => (outcomes[p] ??= o.state === 'done' ? 'done' : o.reason))).toBeNull();
    expect(outcomes['b.bin']).toBe(SKIP.corruptData);
    expect(outcomes['c.txt']).toBe('done');
    expect(tally.truncated).toBe(true);
  });
});

describe('the runs of one window', () => {
  it('reruns the window without an entry that proved larger than its header, and extracts the rest', async () => {
    const run = await layerRun(await lyingZip(['b.bin']), 'zip');
    const runs = vi.spyOn(SevenZipWorker.prototype, 'extractNativeZip');
    const [window] = await windowsOf(run);
    expect(await extractWindow(run, window!)).toBeNull();
    expect(runs).toHaveBeenCalledTimes(2);
    expect(await decided(window!)).toEqual({ 'a.dcm': 'done', 'b.bin': SKIP.headerLied, 'z.txt': 'done' });
    expect(await files(run.input.outDir)).toEqual(['a.dcm', 'z.txt']);
  });

  it('gives up after three runs: what is left is skipped as larger than its header, never read', async () => {
    const run = await layerRun(await lyingZip(['b.bin', 'c.bin', 'd.bin']), 'zip');
    const runs = vi.spyOn(SevenZipWorker.prototype, 'extractNativeZip');
    const [window] = await windowsOf(run);
    expect(await extractWindow(run, window!)).toBeNull();
    expect(runs).toHaveBeenCalledTimes(3);
    const skipped = SKIP.headerLied;
    expect(await decided(window!)).toEqual({ 'a.dcm': 'done', 'b.bin': skipped, 'c.bin': skipped, 'd.bin': skipped, 'z.txt': skipped });
    expect(await files(run.input.outDir)).toEqual(['a.dcm']);
  });
});

describe('the windows of a layer, produced and handed over', () => {
  /** Runs the producer and the job side by side, as extractMany does, and answers what the job took. */
  async function produceAndTake(run: LayerRun, windows: AsyncIterable<Window>): Promise<LayerItem[]> {
    const produced = produceWindows(run, windows).finally(() => run.queue.end());
    const taken: LayerItem[] = [];
    for await (const item of handOver(run, produced)) taken.push(item);
    await produced;
    return taken;
  }

  it('skips the rest of the window where the budget ran out, and every later window, extracting none of them', async () => {
    const dir = await tempDir();
    // Six entries of zeros, each small enough for the plan, but more than the layer's ratio allows.
    await sh('for i in 0 1 2 3 4 5; do head -c 100000 /dev/zero > e$i.bin; done && bsdtar --format zip -cf bomb.zip e?.bin', dir);
    const run = await layerRun(path.join(dir, 'bomb.zip'), 'zip', { maxCompressionRatio: 2, ratioFloorBytes: 250_000 });
    const runs = vi.spyOn(SevenZipWorker.prototype, 'extractNativeZip');
    const items = await produceAndTake(run, planWindows<Outcome>(run.plan.items(), { entries: 2, bytes: 1e12 }));
    expect(shown(items)).toEqual([
      ['e0.bin', 'kept'],
      ['e1.bin', 'kept'],
      ...['e2.bin', 'e3.bin', 'e4.bin', 'e5.bin'].map((p) => [p, SKIP.ratio]),
    ]);
    // The third window was never extracted; the second's run stopped before writing e2.bin.
    expect(runs).toHaveBeenCalledTimes(2);
    expect(await files(run.input.outDir)).toEqual(['e0.bin', 'e1.bin']);
    expect(run.tally.written).toBe(200_000);
  });

  it('hands entries on in archive order though they are decided last to first', async () => {
    const dir = await tempDir();
    await sh('echo one > a.txt && echo two > b.txt && echo three > c.txt && bsdtar --format zip -cf abc.zip a.txt b.txt c.txt', dir);
    const run = await layerRun(path.join(dir, 'abc.zip'), 'zip');
    // The files as a run would leave them, written by bsdtar; the step under test only decides.
    await sh(`bsdtar -xf '${run.input.archive}' -C '${run.input.outDir}'`, dir);
    const [window] = await windowsOf(run);
    run.queue.push(window!);
    const taken: string[] = [];
    const job = (async () => {
      for await (const item of handOver(run, Promise.resolve())) taken.push(`${item.path} ${item.type}`);
    })();
    const done: Outcome = { state: 'done', sha256: null, analysis: null, inPlaceAt: null };
    for (const p of ['c.txt', 'b.txt']) {
      window!.outcomes.decide(p, done);
      await sleep(50);
      expect(taken).toEqual([]);
    }
    window!.outcomes.decide('a.txt', done);
    run.queue.end();
    await job;
    expect(taken).toEqual(['a.txt kept', 'b.txt kept', 'c.txt kept']);
  });

  it('hands on no file that is not what its header states, nor a link planted in its place, and says what was never extracted', async () => {
    const dir = await tempDir();
    await sh('for n in a b c d; do echo $n > $n.txt; done && bsdtar --format zip -cf abcd.zip a.txt b.txt c.txt d.txt', dir);
    const run = await layerRun(path.join(dir, 'abcd.zip'), 'zip');
    const out = run.input.outDir;
    await sh(`bsdtar -xf '${run.input.archive}' -C '${out}'`, dir);
    await appendFile(path.join(out, 'b.txt'), 'more than the header says');
    await unlink(path.join(out, 'c.txt'));
    await symlink('/etc/passwd', path.join(out, 'c.txt'));
    const [window] = await windowsOf(run);
    for (const p of ['a.txt', 'b.txt', 'c.txt']) window!.outcomes.decide(p, { state: 'done', sha256: null, analysis: null, inPlaceAt: null });
    run.queue.push(window!);
    run.queue.end();
    const taken: LayerItem[] = [];
    for await (const item of handOver(run, Promise.resolve())) taken.push(item);
    expect(shown(taken)).toEqual([
      ['a.txt', 'kept'],
      ['b.txt', SKIP.corruptData],
      ['c.txt', SKIP.corruptData],
      ['d.txt', SKIP.notExtracted],
    ]);
    // What was not handed on is removed (the link itself, not what it points to).
    expect(await files(out)).toEqual(['a.txt']);
    expect((await lstat('/etc/passwd')).isFile()).toBe(true);
  });
});

describe('one 7-Zip run for every window', () => {
  /** The plan believes `name` holds `size` bytes: what a lying header looks like to the guard. */
  async function* understated(items: AsyncIterable<PlanItem> | Iterable<PlanItem>, name: string, size: number): AsyncGenerator<PlanItem> {
    for await (const item of items) yield item.type === 'planned' && item.path === name ? { ...item, entry: { ...item.entry, size } } : item;
  }

  it('reruns for the entries no run decided when one proved larger than its header', async () => {
    const dir = await tempDir();
    // The link is not planned, so the run is given names and the sizes the plan states.
    await sh(`cp '${DICOM_DIR}/s01_CT_small.dcm' a.dcm && head -c 200000 /dev/zero > b.bin && echo last > z.txt && ln -s a.dcm link`, dir);
    await sh('7zz a -bso0 -bsp0 -snl t.7z a.dcm b.bin link z.txt', dir);
    const input = await layerInput(path.join(dir, 't.7z'), '7z');
    const plan = await planLayer(input);
    if ('ok' in plan) throw new Error(plan.error);
    expect(plan.allPlanned).toBe(false);
    const run = new LayerRun(input, { ...plan, items: () => understated(plan.items(), 'b.bin', 1000) }, (await stat(input.archive)).size);
    // Pushed as the producer would; the run decides entries wherever they lie.
    for (const window of await windowsOf(run, 1)) run.queue.push(window);
    const runs = vi.spyOn(SevenZipWorker.prototype, 'extract');
    await runThrough(run);
    run.queue.end();
    expect(runs).toHaveBeenCalledTimes(2);
    const taken: LayerItem[] = [];
    for await (const item of handOver(run, Promise.resolve())) taken.push(item);
    expect(shown(taken)).toEqual([
      ['a.dcm', 'kept'],
      ['b.bin', SKIP.headerLied],
      ['link', SKIP.symlink],
      ['z.txt', 'kept'],
    ]);
    // The rerun was asked only for what the first left undecided: the entry after the liar.
    expect(runs.mock.calls[1]![0].include).toEqual(['z.txt']);
  });
});

describe('a layer cut short or damaged', () => {
  async function wholeLayer(archive: string, kind: ArchiveKind): Promise<{ items: LayerItem[]; truncated: boolean }> {
    const result = await extractLayer(await layerInput(archive, kind));
    if (!result.ok) throw new Error(result.error);
    const items: LayerItem[] = [];
    for await (const item of result.layer.items) items.push(item);
    await result.layer.done;
    return { items, truncated: result.layer.truncated() };
  }

  it('keeps what a tar holds before its cut, skips the entry the cut goes through, and says the layer is truncated', async () => {
    const dir = await tempDir();
    await sh(`cp '${DICOM_DIR}/s01_CT_small.dcm' a.dcm && head -c 300000 /dev/urandom > noise.bin && echo last > z.txt`, dir);
    await sh('bsdtar -cf t.tar a.dcm noise.bin z.txt && head -c 200000 t.tar > cut.tar', dir);
    const { items, truncated } = await wholeLayer(path.join(dir, 'cut.tar'), 'tar');
    expect(shown(items)).toEqual([
      ['a.dcm', 'kept'],
      ['noise.bin', SKIP.corruptData],
    ]);
    expect(truncated).toBe(true);
  });

  it('hands on the entries around a damaged one of a 7z, in order, and says the layer is truncated', async () => {
    const dir = await tempDir();
    await sh(`cp '${DICOM_DIR}/s01_CT_small.dcm' a.dcm && head -c 300000 /dev/urandom > b.bin && echo last > c.txt`, dir);
    await sh('7zz a -bso0 -bsp0 -ms=off d.7z a.dcm b.bin c.txt', dir);
    const archive = await readFile(path.join(dir, 'd.7z'));
    archive.fill(0x5a, 150_000, 150_064);
    await writeFile(path.join(dir, 'd.7z'), archive);
    const { items, truncated } = await wholeLayer(path.join(dir, 'd.7z'), '7z');
    expect(shown(items)).toEqual([
      ['a.dcm', 'kept'],
      ['b.bin', SKIP.corruptData],
      ['c.txt', 'kept'],
    ]);
    expect(truncated).toBe(true);
  });
});
