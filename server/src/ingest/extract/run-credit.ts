// How far a 7-Zip run may go ahead of the job. 7-Zip reads a 7z or a RAR from start to end in one
// synchronous run, which the job cannot pause by message; left alone, it wrote 100,000 tiny files
// while the job recorded the first thousands, and their outcomes waited in the job's memory. The
// run waits (Atomics.wait on the worker thread, sevenzip-worker.ts) before opening a file while
// it has opened `ahead` files more than the job has taken entries.
/** Files a run may open beyond the entries the job has taken: two windows' worth (plan-windows.ts). */
export const RUN_AHEAD_FILES = 4000;
/** The shared count is raised once every this many entries, not at each. */
const STEP = 64;
const UNLIMITED = 0x7fffffff;

export class RunCredit {
  /** Files the run may open in all; shared with the worker thread. */
  readonly shared = new Int32Array(new SharedArrayBuffer(4));
  #taken = 0;

  constructor(private readonly ahead = RUN_AHEAD_FILES) {
    Atomics.store(this.shared, 0, ahead);
  }

  /** The job has taken one more of the layer's entries. */
  took(): void {
    this.#taken += 1;
    if (this.#taken % STEP === 0) this.#set(this.#taken + this.ahead);
  }

  /**
   * The run must not wait for the job any longer: the job stopped, or it waits for the run itself
   * (a nested archive is extracted only once the outer run is done, so the byte budget is not
   * granted twice).
   */
  unlimited(): void {
    this.#set(UNLIMITED);
  }

  #set(allowed: number): void {
    if (Atomics.load(this.shared, 0) === UNLIMITED) return;
    Atomics.store(this.shared, 0, allowed);
    Atomics.notify(this.shared, 0);
  }
}
