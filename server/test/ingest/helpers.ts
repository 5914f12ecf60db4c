// Shared by the processing tests: temp dirs, real tools, and small writers for formats no tool here writes.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, expect } from 'vitest';
import { ingestUpload } from '../../src/ingest/ingest-upload.js';
import type { IngestedEntry, IngestResult } from '../../src/ingest/ingest-types.js';
import type { IngestLimits } from '../../src/ingest/limits.js';
import type { WindowSize } from '../../src/ingest/extract/plan-windows.js';

export const FIXTURES = path.resolve(import.meta.dirname, '../fixtures');
export const DICOM_DIR = path.join(FIXTURES, 'dicom');

const run = promisify(execFile);

export async function sh(command: string, cwd: string): Promise<string> {
  const { stdout } = await run('sh', ['-c', command], { cwd, maxBuffer: 64 << 20 });
  return stdout;
}

const created: string[] = [];
afterEach(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'processing-test-'));
  created.push(dir);
  return dir;
}

export interface Collected {
  result: IngestResult;
  entries: (IngestedEntry & { existed: boolean })[];
}

/** Runs ingestUpload and records each entry, and whether its temp file existed during the callback. */
export async function collect(
  inputPath: string,
  originalName: string,
  options: { limits?: Partial<IngestLimits>; signal?: AbortSignal; workDir?: string; threads?: 1 | 2; window?: WindowSize } = {},
): Promise<Collected> {
  const workDir = options.workDir ?? (await tempDir());
  const entries: Collected['entries'] = [];
  const result = await ingestUpload(
    { inputPath, originalName, workDir, limits: options.limits, signal: options.signal, threads: options.threads, window: options.window },
    async (entry) => {
      const existed = entry.tempPath !== null && (await stat(entry.tempPath)).isFile();
      entries.push({ ...entry, existed });
    },
  );
  expectSummaryAddsUp(result, entries);
  return { result, entries };
}

/**
 * Issue 14's identity, checked on every archive any test processes: the summary's buckets add up to
 * its entries, and they are what was actually emitted (skips only counted, beyond the entry limit,
 * are the one part never emitted).
 */
function expectSummaryAddsUp({ summary }: IngestResult, entries: readonly IngestedEntry[]): void {
  const { instances, duplicates, conflicts, other, unreadable, skipped } = summary;
  expect(summary.entries).toBe(instances + duplicates + conflicts + other + unreadable + skipped);
  const emitted = (kind: IngestedEntry['kind']) => entries.filter((e) => e.kind === kind).length;
  expect(emitted('dicom')).toBe(instances + duplicates + conflicts + unreadable);
  expect(emitted('other')).toBe(other);
  expect(emitted('skipped')).toBeLessThanOrEqual(skipped);
  expect(summary.entries - entries.length).toBe(skipped - emitted('skipped'));
}

/**
 * What dcmtk's reference reader says of some tags (first occurrence each); null when absent or empty.
 * `recover` reads a damaged file as far as it goes (+E), as dcmtk's error recovery does.
 */
export async function dcmdumpTags(file: string, tags: readonly string[], recover = false): Promise<Record<string, string | null>> {
  const flags = recover ? '+E' : '';
  // With +E, dcmdump still exits 1 after printing what it could read.
  const out = await sh(`dcmdump -q -Un ${flags} ${tags.map((t) => `+P ${t}`).join(' ')} '${file}'${recover ? ' || true' : ''}`, path.dirname(file));
  const values: Record<string, string | null> = Object.fromEntries(tags.map((t) => [t, null]));
  for (const line of out.split('\n')) {
    const match = /^\s*\(([0-9a-f]{4},[0-9a-f]{4})\) \S\S (?:\[(.*?)\]|(\d+))?/.exec(line);
    if (match === null) continue;
    const tag = tags.find((t) => t.toLowerCase() === match[1]);
    if (tag === undefined || values[tag] !== null) continue;
    const value = (match[2] ?? match[3] ?? '').replace(/\0/g, '').trim();
    values[tag] = value === '' ? null : value;
  }
  return values;
}

export async function dicomFixtures(): Promise<string[]> {
  return (await readdir(DICOM_DIR)).filter((f) => /^s\d\d_/.test(f)).sort();
}

export async function dirBytes(dir: string): Promise<number> {
  const out = await sh(`du -sb '${dir}' | cut -f1`, dir).catch(() => '0');
  return Number(out.trim());
}
