// The state one layer of many entries shares between its steps: the producer (produce-windows.ts)
// extracting window by window (window-runs.ts) or in one run (run-through.ts), and the job taking
// entries in order (hand-over.ts). Each step changes only the parts named here.
import { Holds } from './holds.js';
import { windowedKind, type LayerPlan } from './layer-plan.js';
import type { LayerInput, Outcome } from './layer-types.js';
import { WindowQueue, type PlanWindow } from './plan-windows.js';
import { RunCredit } from './run-credit.js';
import { RunTally } from './run-tally.js';

export type Window = PlanWindow<Outcome>;

export class LayerRun {
  /** Each window has a run of its own (zip, native tar), or one 7-Zip run serves them all. */
  readonly windowed: boolean;
  /** Windows handed from the producer to the job, and the outcomes decided in them. */
  readonly queue = new WindowQueue<Outcome>();
  /** Nested layers that paused this one; no run starts while any does. */
  readonly holds = new Holds();
  /** 7-Zip's runs go at most a bounded number of files ahead of the job (native runs are a window each). */
  readonly credit: RunCredit | null;
  /** Bytes written and damage reported by every run of the layer. */
  readonly tally: RunTally;
  /** The run going now, which a pause waits for. */
  #inFlight: Promise<unknown> = Promise.resolve();

  constructor(
    readonly input: LayerInput,
    readonly plan: LayerPlan,
    archiveBytes: number,
  ) {
    this.windowed = windowedKind(input.kind, plan.native);
    // Two windows ahead, whatever their size (run-credit.ts).
    this.credit = plan.native === null ? new RunCredit(input.window && 2 * input.window.entries) : null;
    this.tally = new RunTally(input, archiveBytes, plan.truncated);
  }

  /** Starts a run that a pause must wait for. */
  going<T>(run: Promise<T>): Promise<T> {
    this.#inFlight = run;
    return run;
  }

  async pause(): Promise<void> {
    this.holds.hold();
    // A 7-Zip run serving every window cannot stop between windows: it is let go on to its end.
    this.credit?.unlimited();
    await this.#inFlight.catch(() => undefined);
  }

  resume(): void {
    this.holds.release();
  }
}
