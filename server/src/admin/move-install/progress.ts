// Progress lines for a long copy: every table, and the objects at most every few seconds.
export type Print = (line: string) => void;

const OBJECT_LINE_EVERY_MS = 2000;

export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(1)} ${units[unit]}`;
}

export const count = (n: number) => n.toLocaleString('en-US');

/** '1 stored object' / '3 stored objects'. */
export const counted = (n: number, one: string, many: string) => `${count(n)} ${n === 1 ? one : many}`;

export class Progress {
  #lastObjectLine = 0;

  constructor(readonly print: Print) {}

  #lastRowLine = 0;

  rows(table: string, rows: number, force = false): void {
    const now = Date.now();
    if (!force && now - this.#lastRowLine < OBJECT_LINE_EVERY_MS) return;
    this.#lastRowLine = now;
    this.print(`  ${table}: ${count(rows)} rows`);
  }

  objects(done: number, total: number, bytes: number, totalBytes: number, force = false): void {
    const now = Date.now();
    if (!force && now - this.#lastObjectLine < OBJECT_LINE_EVERY_MS) return;
    this.#lastObjectLine = now;
    this.print(`  objects: ${count(done)} of ${count(total)} (${formatBytes(bytes)} of ${formatBytes(totalBytes)})`);
  }
}
