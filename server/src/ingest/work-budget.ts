// The work one upload may cost, whatever its bytes: archives opened, entries listed across every
// nesting level, and time. The byte limits (limits.ts) bound disk; these bound how long a small
// upload can hold a processing slot (issue 12: a 24 KB nest of 4,369 zips kept one busy for
// minutes). Crossing one stops the walk at once and fails the upload with a sentence its owner
// can act on.
import type { IngestLimits } from './limits.js';

export type BudgetLimits = Pick<IngestLimits, 'maxArchives' | 'maxEntriesSeen' | 'maxProcessingMs'>;

const count = (n: number) => n.toLocaleString('en-US');

function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60 || seconds % 60 !== 0) return `${count(seconds)} second${seconds === 1 ? '' : 's'}`;
  const minutes = seconds / 60;
  return `${count(minutes)} minute${minutes === 1 ? '' : 's'}`;
}

/** The upload crossed its work budget; `message` is what its owner reads. */
export class WorkBudgetExceeded extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkBudgetExceeded';
  }
}

/** The setting an administrator raises for each budget: named in the message, as docs/configuration.md lists it. */
export function budgetMessage(which: 'archives' | 'entries' | 'time', limits: BudgetLimits): string {
  switch (which) {
    case 'archives':
      return (
        `Processing stopped: the upload holds more than ${count(limits.maxArchives)} archives (counting those inside other archives), ` +
        'the most one upload may open. Unpack it and upload its contents, or ask your administrator to raise MAX_ARCHIVES_PER_UPLOAD.'
      );
    case 'entries':
      return (
        `Processing stopped: the archives in this upload list more than ${count(limits.maxEntriesSeen)} entries in all, ` +
        'the most one upload may go through. Split it into smaller uploads, or ask your administrator to raise MAX_ENTRIES_SEEN_PER_UPLOAD.'
      );
    case 'time':
      return (
        `Processing stopped: the upload was still being processed after ${duration(limits.maxProcessingMs)}, the longest one upload may take. ` +
        'Split it into smaller uploads, or ask your administrator to raise MAX_PROCESSING_SECONDS.'
      );
  }
}

/** Counts one upload's work; each count throws WorkBudgetExceeded once it passes its limit. */
export class WorkBudget {
  #archives = 0;
  #entries = 0;

  constructor(private readonly limits: BudgetLimits) {}

  /** Before an archive (any extraction layer, a .gz too) is opened. */
  openArchive(): void {
    this.#archives += 1;
    if (this.#archives > this.limits.maxArchives) throw new WorkBudgetExceeded(budgetMessage('archives', this.limits));
  }

  /** Once an archive is listed, before any of it is extracted: every entry listed or only counted. */
  seeEntries(n: number): void {
    this.#entries += n;
    if (this.#entries > this.limits.maxEntriesSeen) throw new WorkBudgetExceeded(budgetMessage('entries', this.limits));
  }

  get archivesOpened(): number {
    return this.#archives;
  }
}
