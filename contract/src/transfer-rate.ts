// How fast bytes go and how long is left: the web app's upload dialog and the command-line uploader show the same figures.
/** Speed over the last few seconds: long enough to smooth chunk boundaries, short enough to follow a slower link. */
export const RATE_WINDOW_MS = 8_000;

interface Sample {
  at: number;
  bytes: number;
}

/** Bytes per second over a sliding window, from the times given (so tests need no clock). */
export class TransferRate {
  private samples: Sample[] = [];

  /** A zero-byte sample marks when sending began, so the first chunk's bytes are spread over its time. */
  record(bytes: number, at: number): void {
    if (bytes < 0) return;
    this.samples.push({ at, bytes });
    this.samples = this.samples.filter((s) => at - s.at <= RATE_WINDOW_MS);
  }

  reset(): void {
    this.samples = [];
  }

  /** Null until there is at least a second of history: a first chunk's burst says little about the link. */
  bytesPerSecond(now: number): number | null {
    const recent = this.samples.filter((s) => now - s.at <= RATE_WINDOW_MS);
    const first = recent[0];
    if (!first) return null;
    const span = now - first.at;
    if (span < 1_000) return null;
    return (recent.reduce((sum, s) => sum + s.bytes, 0) * 1000) / span;
  }
}

export function secondsLeft(remainingBytes: number, bytesPerSecond: number | null): number | null {
  if (bytesPerSecond === null || bytesPerSecond <= 0) return null;
  return Math.ceil(remainingBytes / bytesPerSecond);
}

/** '45 s', '3 min 20 s', '2 h 5 min': a person reads the leading unit first. */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
