// What the runs of one layer (its windows, and the reruns of each) have written and reported. Every
// run's write guard is drawn from it, and every finished run is counted into it, so the upload's
// byte budget and the layer's ratio allowance hold across all the runs of the layer.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { SKIP, type SkipReason } from '../skip-reasons.js';
import { failedNames } from './archive-problems.js';
import { writeGuard } from './layer-budget.js';
import type { Decide, LayerInput, Outcome } from './layer-types.js';
import type { ExtractResult, SettledFile, StopReason, WriteGuard } from './sevenzip/sevenzip-protocol.js';

/** Reruns after an entry proved larger than its header: each costs a new pass over the archive. */
export const MAX_RERUNS = 3;

export const STOP_REASONS: Record<StopReason, SkipReason> = {
  'entry-too-large': SKIP.entryTooLarge,
  'header-lied': SKIP.headerLied,
  total: SKIP.totalSize,
  ratio: SKIP.ratio,
};

/** The upload's bytes or the layer's ratio allowance are spent: no rerun can write more. */
export function isBudgetStop(reason: StopReason | null): reason is 'total' | 'ratio' {
  return reason === 'total' || reason === 'ratio';
}

/** What the worker found of a file as it settled. */
export function settledOutcome(file: SettledFile): Outcome {
  return file.failed ? { state: 'skipped', reason: SKIP.corruptData } : { state: 'done', sha256: file.sha256, analysis: file.analysis, inPlaceAt: file.inPlaceAt };
}

export class RunTally {
  /** What earlier runs of this layer wrote: the ratio allowance is the layer's, not each run's. */
  #written = 0;
  #truncated: boolean;

  constructor(
    private readonly input: Pick<LayerInput, 'limits' | 'budget' | 'outDir'>,
    private readonly archiveBytes: number,
    /** The listing already ended early. */
    truncated: boolean,
  ) {
    this.#truncated = truncated;
  }

  get written(): number {
    return this.#written;
  }

  /** A run ended in a crash or with an error code of its own (not stopped by the guard): not everything was read. */
  get truncated(): boolean {
    return this.#truncated;
  }

  /** The next run's guard: each file held to its stated size, the run to what the layer has left. */
  guard(expectedSizes: Record<string, number>): WriteGuard {
    return writeGuard(this.input.limits, this.input.budget.remainingBytes, this.archiveBytes, expectedSizes, false, this.#written);
  }

  /** Counts what a finished run wrote and decides what it reported; answers the guard's stop, if any. */
  async account(result: ExtractResult, decide: Decide): Promise<StopReason | null> {
    this.input.budget.remainingBytes -= result.written;
    this.#written += result.written;
    const { names: failed } = failedNames(result.errors);
    for (const p of failed) decide(p, { state: 'skipped', reason: SKIP.corruptData });
    for (const p of result.completed) decide(p, { state: 'done', sha256: null, analysis: null, inPlaceAt: null });
    const stop = result.stop;
    // A run the guard stopped is killed, so it ends without an exit code: that is the budget's
    // doing (reported as such below), not an archive that ends early.
    if (stop === null && (result.crash !== null || result.exitCode !== 0)) this.#truncated = true;
    if (stop === null) return null;
    if (stop.path !== null) {
      // The file the guard stopped is part written: it must not be taken for an entry.
      decide(stop.path, { state: 'skipped', reason: STOP_REASONS[stop.reason] });
      await rm(path.join(this.input.outDir, stop.path), { force: true });
    }
    return stop.reason;
  }
}
