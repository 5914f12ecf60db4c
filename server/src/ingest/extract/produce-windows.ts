// The producer of a layer of many entries: its plan, window by window, handed to the job (never
// more than two windows ahead of it) and, when each window has runs of its own, extracted in turn.
import type { LayerRun, Window } from './layer-run.js';
import type { StopReason } from './sevenzip/sevenzip-protocol.js';
import { STOP_REASONS } from './run-tally.js';
import { extractWindow } from './window-runs.js';

/**
 * Ends early once the job stops taking entries (abort, budget): extracting more would be for
 * nobody. After a run stopped for the budget, no window is extracted again: what is left of that
 * window and every later one is skipped for the budget's reason, unwritten.
 */
export async function produceWindows(run: LayerRun, windows: AsyncIterable<Window>): Promise<void> {
  const { queue } = run;
  let index = 0;
  let budgetStop: StopReason | null = null;
  for await (const window of windows) {
    // The job has finished the window before the previous one: two windows at most wait for it.
    await queue.finished(index - 1);
    index += 1;
    if (queue.released) return;
    queue.push(window);
    if (!run.windowed) continue;
    if (budgetStop === null) {
      await run.holds.free();
      if (queue.released) return;
      budgetStop = await run.going(extractWindow(run, window));
    }
    if (budgetStop !== null) for (const p of window.include.keys()) window.outcomes.decide(p, { state: 'skipped', reason: STOP_REASONS[budgetStop] });
  }
}
