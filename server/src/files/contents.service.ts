// What processing found in an upload, for people: entries page by page, and the study → series tree.
import type { TFileContents, TFileEntry, TStudyNode } from '@portal/contract';
import type { Actor } from '../auth/index.js';
import type { FileEntryRow, ProjectFileRow } from '../db/schema.js';
import { notFound } from '../errors/app-error.js';
import type { FilesService } from './files.service.js';
import type { EntriesRepository, SeriesCount } from './entries.repository.js';
import { removeDisguisingCharactersFromPath } from './file-name.js';
import { presentDeidentification } from './file.presenter.js';
import { refuseInfectedEntry } from './infected.js';

export const MAX_PAGE = 500;

/** An entry never scanned (no scanner, no bytes kept, recorded before migration 035) says so: never 'clean'. */
function presentEntryScan(row: Pick<FileEntryRow, 'scan_status' | 'scan_signature'>): TFileEntry['scan'] {
  if (row.scan_status === 'clean' || row.scan_status === 'infected') return { status: row.scan_status, signature: row.scan_status === 'infected' ? row.scan_signature : null };
  return { status: 'not_scanned', signature: row.scan_signature };
}

export function presentEntry(row: FileEntryRow, needsReviewReason: string | null = null): TFileEntry {
  const dicom =
    row.kind === 'dicom'
      ? {
          sop_instance_uid: row.sop_instance_uid,
          sop_class_uid: row.sop_class_uid,
          study_instance_uid: row.study_instance_uid,
          series_instance_uid: row.series_instance_uid,
          modality: row.modality,
          study_date: row.study_date,
          study_description: row.study_description,
          series_description: row.series_description,
          transfer_syntax_uid: row.transfer_syntax_uid,
          rows: row.rows,
          columns: row.columns,
          number_of_frames: row.number_of_frames ?? row.number_of_frames_text,
          patient_name: row.patient_name,
          patient_id: row.patient_id,
        }
      : null;
  return { id: row.id, path: removeDisguisingCharactersFromPath(row.path), size: Number(row.size), sha256: row.sha256, kind: row.kind as TFileEntry['kind'], reason: row.reason, dicom, needs_review_reason: needsReviewReason, scan: presentEntryScan(row) };
}

export function buildTree(series: SeriesCount[]): TStudyNode[] {
  const studies = new Map<string, TStudyNode>();
  for (const s of series) {
    let study = studies.get(s.study_instance_uid);
    if (!study) {
      study = { study_instance_uid: s.study_instance_uid, study_date: s.study_date, study_description: s.study_description, series: [] };
      studies.set(s.study_instance_uid, study);
    }
    study.series.push({
      series_instance_uid: s.series_instance_uid,
      modality: s.modality,
      series_description: s.series_description,
      instances: s.instances,
    });
  }
  return [...studies.values()];
}

export class ContentsService {
  constructor(
    private readonly files: FilesService,
    private readonly entries: EntriesRepository,
  ) {}

  /**
   * Paged on the server (a file may hold 100,000 entries, too many to send at once). For a file with a
   * de-identification report, the flagged entries come first: they are at most 500 (the report lists
   * no more), so they are read in one query and the page is cut from "flagged, then the rest in
   * order" without sorting the whole file. `review` keeps only the flagged ones.
   */
  async contents(
    actor: Actor,
    fileId: number,
    page: { offset: number; limit: number; kind?: TFileEntry['kind']; review?: boolean },
  ): Promise<TFileContents> {
    const file = await this.files.require(actor, fileId, 'read');
    const reasons = new Map((presentDeidentification(file.deid_outcome)?.needs_review ?? []).map((item) => [item.path, item.reason]));
    const paths = [...reasons.keys()];
    const [flagged, total, series] = await Promise.all([
      this.entries.withPaths(file.id, paths, page.kind),
      page.review ? Promise.resolve(0) : this.entries.count(file.id, page.kind),
      this.entries.seriesCounts(file.id),
    ]);
    const first = flagged.slice(page.offset, page.offset + page.limit);
    const room = page.limit - first.length;
    const rest =
      page.review || room === 0
        ? []
        : await this.entries.pageWithoutPaths(file.id, paths, { offset: Math.max(0, page.offset - flagged.length), limit: room, ...(page.kind && { kind: page.kind }) });
    return {
      entries: [...first.map((row) => presentEntry(row, reasons.get(row.path) ?? null)), ...rest.map((row) => presentEntry(row))],
      page: { offset: page.offset, limit: page.limit, total: page.review ? flagged.length : total },
      studies: buildTree(series),
    };
  }

  /** One kept entry, for download (recorded when bytes go out, not for a HEAD); skipped entries have no bytes to give. */
  async entryForDownload(actor: Actor, fileId: number, entryId: number, sendsBytes: boolean): Promise<DownloadableEntry> {
    const entry = await this.downloadableEntry(actor, fileId, entryId);
    if (sendsBytes) await this.files.recordEntryDownload(entry.file, entry.row);
    return entry;
  }

  /** The same checks, recording nothing: for a download link, which records its own use. */
  async downloadableEntry(actor: Actor, fileId: number, entryId: number): Promise<DownloadableEntry> {
    const file = await this.files.require(actor, fileId, 'download');
    const row = await this.entries.find(file.id, entryId);
    if (!row) throw notFound('Entry not found');
    if (!row.storage_key || !row.sha256) throw notFound('This entry was skipped, so it has no content to download');
    refuseInfectedEntry(file, row);
    return { file, row, storageKey: row.storage_key, offset: row.storage_offset === null ? 0 : Number(row.storage_offset) };
  }
}

export interface DownloadableEntry {
  file: ProjectFileRow;
  row: FileEntryRow;
  storageKey: string;
  offset: number;
}
