// The row an upload became in the project's files: its SHA-256 (a delivery's is its manifest's),
// and with --wait what processing made of it.
import { setTimeout as sleep } from 'node:timers/promises';
import type { TProjectFile } from '@portal/contract';
import { CliError, EXIT } from './exit-codes.js';
import type { PortalApi } from './portal-api.js';

const WAIT_POLL_MS = 2_000;

export async function projectFile(api: PortalApi, projectId: number, fileId: number, name: string): Promise<TProjectFile> {
  const query = new URLSearchParams({ study_petition_id: String(projectId), q: name, per_page: '100', sort: 'created_at', order: 'desc' });
  const { data } = await api.json<{ data: TProjectFile[] }>('GET', `/study-petitions-files?${query.toString()}`, 'Reading the uploaded file’s row');
  const row = data.find((file) => file.id === fileId);
  if (!row) throw new CliError(EXIT.notFound, `The portal does not list file ${fileId} in project ${projectId} (was it deleted meanwhile?).`);
  return row;
}

/** Asks every 2 s until processing has finished, well or not. */
export async function processed(api: PortalApi, projectId: number, fileId: number, name: string): Promise<TProjectFile> {
  for (;;) {
    const row = await projectFile(api, projectId, fileId, name);
    if (row.processing.status === 'ready' || row.processing.status === 'failed') return row;
    await sleep(WAIT_POLL_MS, undefined, { signal: api.signal });
  }
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The summary in words, as the files table's summary says it. */
export function summaryLines(row: TProjectFile): string[] {
  if (row.processing.status === 'failed') return [`Processing failed: ${row.processing.error ?? 'the portal gave no reason'}`];
  const summary = row.processing.summary;
  const lines = [
    summary
      ? `Processed: ${plural(summary.studies, 'study', 'studies')}, ${plural(summary.series, 'series', 'series')}, ${plural(summary.instances, 'instance')}, ${plural(summary.other, 'other file')}, ${plural(summary.skipped, 'skipped file')}`
      : 'Processed.',
  ];
  if (summary && summary.duplicates + summary.conflicts + summary.unreadable > 0) {
    lines.push(`Also: ${plural(summary.duplicates, 'duplicate')}, ${plural(summary.conflicts, 'conflict')}, ${plural(summary.unreadable, 'unreadable DICOM file')}`);
  }
  const deid = row.deidentification;
  if (deid) lines.push(`Patient identity removed: ${plural(deid.instances.browser, 'instance')} on this computer, ${deid.instances.server} by the portal, ${deid.instances.refused} not kept`);
  return lines;
}
