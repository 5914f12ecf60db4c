// The benchmark's verdict: each path's runs side by side with the bare pipe's, and issue 13's
// targets checked: every portal path at ≥ 90% of the pipe's throughput (the median of the ratios
// taken round by round, each against the pipe run just before or after it), peak RSS < 200 MB,
// and a tus upload cut mid-chunk and resumed re-sends at most one chunk.
import type { ResumeResult } from './upload-resume.js';

export interface Measurement {
  seconds: number;
  bytes: number;
  peakRssBytes: number;
  /** CPU the server process used during the upload (every thread), seconds. */
  serverCpuSeconds: number;
  /** The part of it spent on the server's main thread. */
  serverMainCpuSeconds: number;
  /** CPU the benchmark's own client used meanwhile, seconds. */
  clientCpuSeconds: number;
  /** From the last byte sent to the answer (for tus, of the last PATCH), seconds. */
  tailSeconds: number;
  /** BENCH_THREADS=1: the server's CPU by thread name, seconds (printed under the round's line). */
  serverThreadCpuSeconds?: Map<string, number>;
}

export type PathName = 'pipe' | 'pipe-16k' | 'multipart' | 'tus' | 'multipart-s3' | 'tus-s3';
/** The same paths storing in S3 (S3_* settings, else a loopback s3rver): reported, no target (the S3 service is the bound). */
export const S3_PATHS: readonly PathName[] = ['multipart-s3', 'tus-s3'];
export const BASELINE: PathName = 'pipe';
export const PORTAL_PATHS: readonly PathName[] = ['multipart', 'tus'];

/** One size: for each path, one measurement per round (rounds in the same order for every path). */
export interface SizeResult {
  sizeBytes: number;
  runs: Map<PathName, Measurement[]>;
  resume?: ResumeResult;
}

export const TARGET_THROUGHPUT_RATIO = 0.9;
export const TARGET_PEAK_RSS_BYTES = 200 * 1000 * 1000;

export const mibPerSecond = (m: Measurement) => m.bytes / 1024 ** 2 / m.seconds;

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Throughput ratios to the pipe, round by round. */
export function ratios(result: SizeResult, path: PathName): number[] {
  const base = result.runs.get(BASELINE) ?? [];
  const runs = result.runs.get(path) ?? [];
  return runs.flatMap((m, i) => (base[i] === undefined ? [] : [mibPerSecond(m) / mibPerSecond(base[i])]));
}

export function meetsTargets(result: SizeResult, path: PathName): boolean | undefined {
  const runs = result.runs.get(path);
  if (!PORTAL_PATHS.includes(path) || runs === undefined || runs.length === 0) return undefined;
  const rssOk = Math.max(...runs.map((m) => m.peakRssBytes)) < TARGET_PEAK_RSS_BYTES;
  const r = ratios(result, path);
  return r.length === 0 ? rssOk : rssOk && median(r) >= TARGET_THROUGHPUT_RATIO;
}

const spread = (values: number[], digits: number) => {
  if (values.length === 0) return '-';
  const m = median(values).toFixed(digits);
  return values.length === 1 ? m : `${m} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;
};

export function formatTable(results: SizeResult[]): string {
  const header = ['size', 'path', 'runs', 'MiB/s', 'vs pipe', 'peak RSS MB', 'server CPU s', 'main thread s', 'client CPU s', 'tail s', 'verdict'];
  const rows = results.flatMap((r) =>
    [...r.runs].map(([path, runs]) => {
      const verdict = meetsTargets(r, path);
      return [
        `${(r.sizeBytes / 1024 ** 2).toFixed(0)} MiB`,
        path,
        String(runs.length),
        spread(runs.map(mibPerSecond), 0),
        path === BASELINE ? '1' : spread(ratios(r, path), 2),
        (Math.max(...runs.map((m) => m.peakRssBytes)) / 1e6).toFixed(0),
        spread(runs.map((m) => m.serverCpuSeconds), 1),
        spread(runs.map((m) => m.serverMainCpuSeconds), 1),
        spread(runs.map((m) => m.clientCpuSeconds), 1),
        spread(runs.map((m) => m.tailSeconds), 2),
        verdict === undefined ? '' : verdict ? 'ok' : 'MISSED',
      ];
    }),
  );
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

/** Bytes that reached the server beyond the file's own (request heads included). */
export const resent = (r: ResumeResult) => r.bytesToServer - r.fileBytes;

export function resumeMeetsTarget(result: SizeResult): boolean | undefined {
  return result.resume === undefined ? undefined : resent(result.resume) <= result.resume.chunkBytes;
}

export function formatResume(results: SizeResult[]): string[] {
  return results.flatMap(({ sizeBytes, resume }) => {
    if (resume === undefined) return [];
    const mib = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
    return [
      `${(sizeBytes / 1024 ** 2).toFixed(0)} MiB tus cut mid-chunk, resumed at ${mib(resume.resumedAt)}: the server received ` +
        `${resume.bytesToServer} bytes for ${resume.fileBytes}, ${mib(resent(resume))} re-sent ` +
        `(one chunk is ${mib(resume.chunkBytes)}): ${resumeMeetsTarget({ sizeBytes, runs: new Map(), resume }) ? 'ok' : 'MISSED'}`,
    ];
  });
}
