// One 7-Zip run for every window of a layer it reads from start to end (a 7z, a RAR, a tar the
// native walk declined), held back by the run credit, and rerun (reading the whole archive again)
// for what is left after an entry proved larger than its header.
import { SKIP } from '../skip-reasons.js';
import type { LayerRun } from './layer-run.js';
import { FORMATS, type Decide, type Outcome } from './layer-types.js';
import { isBudgetStop, MAX_RERUNS, settledOutcome, STOP_REASONS } from './run-tally.js';

/** The raw names and stated sizes of the planned entries no run has decided yet, the plan read again. */
export async function undecidedEntries(run: LayerRun): Promise<{ rawPaths: string[]; sizes: Record<string, number> }> {
  const rawPaths: string[] = [];
  const sizes: Record<string, number> = {};
  let ordinal = 0;
  for await (const item of run.plan.items()) {
    if (item.type !== 'planned') continue;
    if (run.queue.undecided(item.path, ordinal)) {
      rawPaths.push(item.entry.rawPath);
      if (item.entry.size !== null) sizes[item.path] = item.entry.size;
    }
    ordinal += 1;
  }
  return { rawPaths, sizes };
}

/**
 * Runs until nothing planned is left undecided, the budget is spent, or MAX_RERUNS runs were made;
 * then tells the queue the run is over, with the verdict for what it left undecided (none: the job
 * says those were not extracted).
 */
export async function runThrough(run: LayerRun): Promise<void> {
  const { input, plan, queue, credit } = run;
  const decide: Decide = (p, value) => queue.decide(p, value);
  let verdict: Outcome | null = null;
  try {
    for (let attempt = 0; ; attempt += 1) {
      await run.holds.free();
      if (queue.released) return;
      // Every listed entry, when all were planned: 7-Zip then needs no list of names, whose matching
      // costs it minutes for 100,000 entries; the entries past the cap follow them and are not
      // written, and the guard holds each file to the size the worker's own listing states.
      const whole = attempt === 0 && plan.allPlanned;
      const pending = whole ? null : await undecidedEntries(run);
      if (pending !== null && pending.rawPaths.length === 0) return;
      const result = await run.going(
        input.sevenZip.extract(
          {
            archive: input.archive,
            format: FORMATS[input.kind],
            outDir: input.outDir,
            include: pending === null ? null : pending.rawPaths,
            ...(whole && plan.overflow > 0 ? { stopAfterFiles: plan.listed } : {}),
            ...(whole ? { sizesFromListing: true } : {}),
            guard: run.tally.guard(pending === null ? {} : pending.sizes),
            settledOnly: true,
            ...(credit === null ? {} : { credit: credit.shared }),
            maxDicomHeaderBytes: input.limits.maxDicomHeaderBytes,
          },
          (file) => decide(file.rel, settledOutcome(file)),
        ),
      );
      const stop = await run.tally.account(result, decide);
      if (stop === null) return;
      // Once the budget is spent, what is left of the plan is skipped for that reason, unwritten.
      if (isBudgetStop(stop)) verdict = { state: 'skipped', reason: STOP_REASONS[stop] };
      else if (attempt + 1 >= MAX_RERUNS) verdict = { state: 'skipped', reason: SKIP.headerLied };
      if (verdict !== null) return;
    }
  } finally {
    queue.runOver(verdict);
  }
}
