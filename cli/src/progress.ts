// What the person at the terminal sees while files go: one line updated in place on a terminal
// (bytes, files, speed, time left); in a log (cron, CI) plain lines, one per finished send and one
// every PLAIN_EVERY_MS during a long one, so the log shows it moving without a line per chunk.
import { formatDuration, secondsLeft, TransferRate } from '@portal/contract/transfer-rate';

const TTY_EVERY_MS = 250;
const PLAIN_EVERY_MS = 10_000;

const UNITS = ['bytes', 'KB', 'MB', 'GB', 'TB'] as const;

/** Sizes as the portal's pages show them: steps of 1024, two decimals. */
export function formatBytes(bytes: number): string {
  const unit = bytes < 1024 ? 0 : Math.min(Math.floor(Math.log2(bytes) / 10), UNITS.length - 1);
  return unit === 0 ? `${Math.round(bytes)} bytes` : `${(bytes / 1024 ** unit).toFixed(2)} ${UNITS[unit]}`;
}

export interface Terminal {
  write(text: string): unknown;
  isTTY?: boolean;
}

export class Progress {
  private sent = 0;
  private files = 0;
  private readonly rate = new TransferRate();
  private lastShown = 0;
  private lineOpen = false;

  constructor(
    private readonly out: Terminal,
    private readonly totalBytes: number,
    private readonly totalFiles: number,
    private readonly now: () => number = Date.now,
  ) {
    this.rate.record(0, now());
  }

  /** Bytes the portal now holds; negative when a broken request's bytes did not all arrive. */
  bytes(count: number): void {
    if (count === 0) return;
    this.sent += count;
    this.rate.record(count, this.now());
    this.show(false);
  }

  filesDone(count: number): void {
    this.files += count;
    this.show(true);
  }

  /** A line of its own (a file left out, a retry), above the progress line on a terminal. */
  say(text: string): void {
    this.clear();
    this.out.write(`${text}\n`);
    this.show(true);
  }

  /** Leaves the terminal's line as it last stood, and the cursor on a fresh line. */
  end(): void {
    if (this.lineOpen) this.out.write('\n');
    this.lineOpen = false;
  }

  summary(): string {
    const at = this.now();
    const speed = this.rate.bytesPerSecond(at);
    const left = secondsLeft(Math.max(this.totalBytes - this.sent, 0), speed);
    return [
      `${formatBytes(Math.max(this.sent, 0))} of ${formatBytes(this.totalBytes)}`,
      `${this.files} of ${this.totalFiles} files`,
      speed === null ? null : `${formatBytes(speed)}/s`,
      left === null || this.sent >= this.totalBytes ? null : `${formatDuration(left)} left`,
    ]
      .filter((part) => part !== null)
      .join(', ');
  }

  private clear(): void {
    if (this.lineOpen) this.out.write('\r\x1b[2K');
    this.lineOpen = false;
  }

  private show(milestone: boolean): void {
    const at = this.now();
    if (this.out.isTTY) {
      if (!milestone && at - this.lastShown < TTY_EVERY_MS) return;
      this.out.write(`\r\x1b[2KSending: ${this.summary()}`);
      this.lineOpen = true;
    } else {
      if (!milestone && at - this.lastShown < PLAIN_EVERY_MS) return;
      this.out.write(`Sent ${this.summary()}\n`);
    }
    this.lastShown = at;
  }
}
