// A layer of many entries, as named steps over one explicit state (layer-run.ts): plan it
// (layer-plan.ts), produce its windows (produce-windows.ts), each extracted by runs of its own
// (window-runs.ts) or all by one 7-Zip run (run-through.ts), and hand its entries to the job in
// archive order (hand-over.ts), every run counted against the budgets (run-tally.ts).
import { LayerRun } from './layer-run.js';
import { planLayer } from './layer-plan.js';
import type { Layer, LayerInput, LayerResult, Outcome } from './layer-types.js';
import { planWindows } from './plan-windows.js';
import { produceWindows } from './produce-windows.js';
import { runThrough } from './run-through.js';
import { handOver } from './hand-over.js';

export async function extractMany(input: LayerInput, archiveBytes: number): Promise<LayerResult> {
  const plan = await planLayer(input);
  if ('ok' in plan) return plan;
  input.seeEntries(plan.listed + plan.overflow);
  input.budget.remainingEntries -= plan.listed;

  const run = new LayerRun(input, plan, archiveBytes);
  const extraction = run.windowed ? Promise.resolve() : runThrough(run);
  // A plan that fails lets the run go on alone to its end rather than wait for entries nobody takes.
  const planned = produceWindows(run, planWindows<Outcome>(plan.items(), input.window)).catch((error: unknown) => {
    run.credit?.unlimited();
    throw error;
  });
  const done = Promise.allSettled([planned, extraction]).then((settled) => {
    run.queue.end();
    for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
  });
  // The consumer may stop early (abort); the rejection is still seen through `done` or `items`.
  done.catch(() => undefined);
  // What the job waits for when an entry was left undecided: a run serving every window ends
  // before the windows are all planned, which wait for the job.
  const runsEnded = run.windowed ? done : extraction;

  const layer: Layer = {
    items: handOver(run, runsEnded),
    done,
    overflow: plan.overflow,
    truncated: () => run.tally.truncated,
    pause: () => run.pause(),
    resume: () => run.resume(),
  };
  return { ok: true, layer };
}
