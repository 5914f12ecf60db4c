import { describe, expect, it } from 'vitest';
import { formatBytes, Progress } from './progress.js';

function terminal(isTTY: boolean) {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => written.push(text) };
}

describe('progress', () => {
  it('updates one line on a terminal with bytes, files, speed and time left', () => {
    let now = 0;
    const out = terminal(true);
    const progress = new Progress(out, 10 * 1024 * 1024, 4, () => now);
    now = 2_000;
    progress.bytes(2 * 1024 * 1024);
    progress.filesDone(1);
    const last = out.written.at(-1);
    expect(last).toBe('\r\x1b[2KSending: 2.00 MB of 10.00 MB, 1 of 4 files, 1.00 MB/s, 8 s left');
    expect(out.written.join('')).not.toContain('\n');
    progress.say('Resuming a.zip: the portal already has part of it.');
    expect(out.written.slice(-3)).toEqual(['\r\x1b[2K', 'Resuming a.zip: the portal already has part of it.\n', last]);
    progress.end();
    expect(out.written.at(-1)).toBe('\n');
  });

  it('writes plain lines elsewhere: one per finished send and one every 10 s, not one per chunk', () => {
    let now = 0;
    const out = terminal(false);
    const progress = new Progress(out, 4000, 2, () => now);
    for (let i = 0; i < 20; i++) {
      now += 100;
      progress.bytes(100);
    }
    expect(out.written).toEqual([]);
    now = 12_000;
    progress.bytes(100);
    expect(out.written).toEqual(['Sent 2.05 KB of 3.91 KB, 0 of 2 files\n']);
    progress.filesDone(1);
    expect(out.written).toHaveLength(2);
    expect(out.written.at(-1)).toBe('Sent 2.05 KB of 3.91 KB, 1 of 2 files\n');
  });

  it('says sizes as the portal does, in steps of 1024', () => {
    expect(formatBytes(0)).toBe('0 bytes');
    expect(formatBytes(1023)).toBe('1023 bytes');
    expect(formatBytes(1536)).toBe('1.50 KB');
    expect(formatBytes(5 * 1024 ** 3)).toBe('5.00 GB');
  });
});
