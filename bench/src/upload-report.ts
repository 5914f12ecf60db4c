// The benchmark's verdict: figures side by side and the two targets of issue 3 checked.

export interface Measurement {
  seconds: number;
  bytes: number;
  peakRssBytes: number;
}

export interface SizeResult {
  sizeBytes: number;
  baseline?: Measurement;
  portal?: Measurement;
}

export const TARGET_THROUGHPUT_RATIO = 0.75;
export const TARGET_PEAK_RSS_BYTES = 200 * 1000 * 1000;

const mbPerSecond = (m: Measurement) => m.bytes / 1e6 / m.seconds;
const mb = (bytes: number) => (bytes / 1e6).toFixed(1);

export function throughputRatio(result: SizeResult): number | undefined {
  return result.portal && result.baseline ? mbPerSecond(result.portal) / mbPerSecond(result.baseline) : undefined;
}

export function meetsTargets(result: SizeResult): boolean | undefined {
  const ratio = throughputRatio(result);
  if (result.portal === undefined) return undefined;
  const rssOk = result.portal.peakRssBytes < TARGET_PEAK_RSS_BYTES;
  return ratio === undefined ? rssOk : rssOk && ratio >= TARGET_THROUGHPUT_RATIO;
}

export function formatTable(results: SizeResult[]): string {
  const header = ['size', 'baseline MB/s', 'baseline peak RSS MB', 'portal MB/s', 'portal peak RSS MB', 'portal/baseline', 'verdict'];
  const rows = results.map((r) => {
    const ratio = throughputRatio(r);
    const verdict = meetsTargets(r);
    return [
      `${(r.sizeBytes / 1024 ** 2).toFixed(0)} MiB`,
      r.baseline ? mbPerSecond(r.baseline).toFixed(1) : '-',
      r.baseline ? mb(r.baseline.peakRssBytes) : '-',
      r.portal ? mbPerSecond(r.portal).toFixed(1) : '-',
      r.portal ? mb(r.portal.peakRssBytes) : '-',
      ratio === undefined ? '-' : ratio.toFixed(2),
      verdict === undefined ? 'baseline only' : verdict ? (ratio === undefined ? 'RSS ok' : 'ok') : 'MISSED',
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}
