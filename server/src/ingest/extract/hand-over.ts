// The consumer side of a layer of many entries: the job takes entries in archive order, each once
// it is decided (entries finish in whatever order the threads write them), and each kept one only
// after it is found on disk as a regular file of the size its header stated.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { SKIP } from '../skip-reasons.js';
import type { LayerRun, Window } from './layer-run.js';
import type { LayerItem, Outcome } from './layer-types.js';
import { regularFileInside } from './output-file.js';
import type { PlanItem } from './plan-entries.js';

type Planned = Extract<PlanItem, { type: 'planned' }>;

/** What the job is handed for a planned entry, given what extraction decided about it. */
export async function finalItem(outDir: string, item: Planned, outcome: Outcome): Promise<LayerItem> {
  const analysis = outcome.state === 'done' ? outcome.analysis : null;
  if (outcome.state === 'done' && outcome.inPlaceAt !== null && outcome.sha256 !== null && analysis !== null)
    return { type: 'in-place', path: item.path, at: outcome.inPlaceAt, sha256: outcome.sha256, analysis };
  // The worker checked a file it analysed as it settled; any other is checked here.
  const onDisk =
    analysis !== null
      ? { file: path.join(outDir, item.path), size: analysis.size }
      : outcome.state === 'done'
        ? await regularFileInside(outDir, item.path)
        : null;
  const sizeAgrees = onDisk !== null && (item.entry.size === null || onDisk.size === item.entry.size);
  if (outcome.state === 'done' && onDisk !== null && sizeAgrees) return { type: 'kept', path: item.path, file: onDisk.file, size: onDisk.size, sha256: outcome.sha256, analysis };
  const reason = outcome.state === 'done' ? SKIP.corruptData : outcome.reason;
  await rm(path.join(outDir, item.path), { force: true });
  return { type: 'skipped', path: item.path, reason, size: item.entry.size };
}

async function* windowItems(run: LayerRun, window: Window, runsEnded: Promise<unknown>): AsyncGenerator<LayerItem> {
  for (const item of window.items) {
    run.credit?.took();
    if (item.type !== 'planned') {
      yield item;
      continue;
    }
    const decided = await window.outcomes.next(item.path);
    // Undecided when the run ended: its failure, if it failed, is the consumer's answer.
    if (decided === undefined) await runsEnded;
    yield await finalItem(run.input.outDir, item, decided ?? { state: 'skipped', reason: SKIP.notExtracted });
  }
}

/**
 * Every window's items in archive order. `runsEnded` settles when every run that could still
 * decide an entry is over. However the job stops taking them, the producer and the run credit are
 * let go, so neither waits for it.
 */
export async function* handOver(run: LayerRun, runsEnded: Promise<unknown>): AsyncGenerator<LayerItem> {
  const { queue } = run;
  try {
    for (let window = await queue.next(); window !== undefined; window = await queue.next()) {
      yield* windowItems(run, window, runsEnded);
      queue.finish(window);
    }
  } finally {
    queue.release();
    run.credit?.unlimited();
  }
}
