// Progress lines for a long copy: each table when done, and the objects at most every few seconds.
export type Print = (line: string) => void;

const LINE_EVERY_MS = 2000;

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
  #lastAt = 0;
  #lastLine = '';

  constructor(readonly print: Print) {}

  /** A line now if `force` or a while has passed, never the same line twice running. */
  #line(line: string, force: boolean): void {
    const now = Date.now();
    if (line === this.#lastLine || (!force && now - this.#lastAt < LINE_EVERY_MS)) return;
    this.#lastAt = now;
    this.#lastLine = line;
    this.print(line);
  }

  rows(table: string, rows: number, force = false): void {
    this.#line(`  ${table}: ${counted(rows, 'row', 'rows')}`, force);
  }

  objects(done: number, total: number, bytes: number, totalBytes: number, force = false): void {
    this.#line(`  objects: ${count(done)} of ${count(total)} (${formatBytes(bytes)} of ${formatBytes(totalBytes)})`, force);
  }
}
