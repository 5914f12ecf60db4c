// Counts for an upload's summary. Every entry lands in exactly one bucket, so that
// entries = instances + duplicates + conflicts + other + unreadable + skipped (issue 14): a person
// can check that nothing went missing between what was sent and what is shown. A conflict (issue
// 35) is an instance whose SOP Instance UID was already seen with another study, series or other
// bytes: not a copy, and counted apart so that it is not lost among the duplicates.
import type { IngestedEntry, IngestSummary } from './ingest-types.js';

/**
 * The reason recorded on a DICOMDIR entry (kind 'other'): it is DICOM, but an index of the other
 * files of a disc or folder, not an image, so it is kept and counted among the other files.
 */
export const DICOMDIR_NOTE = 'DICOMDIR: the index of a DICOM disc or folder, not an image';

/** The reason recorded on a DICOM file whose header reads but names no instance. */
export const NO_SOP_INSTANCE_UID = 'no SOP Instance UID';

export class SummaryBuilder {
  private readonly studies = new Set<string>();
  private readonly series = new Set<string>();
  /** Each SOP Instance UID counted, with what a copy of it must repeat: its study, series and bytes. */
  private readonly instances = new Map<string, string>();
  private entries = 0;
  private duplicates = 0;
  private conflicts = 0;
  private other = 0;
  private dicomdirs = 0;
  private unreadable = 0;
  private skipped = 0;
  private readonly unreadableReasons: Record<string, number> = {};
  private readonly skippedReasons: Record<string, number> = {};

  add(entry: Pick<IngestedEntry, 'kind' | 'reason' | 'dicom' | 'sha256'>): void {
    this.entries += 1;
    if (entry.kind === 'skipped') {
      this.tally(this.skippedReasons, entry.reason ?? 'unknown', 1);
      this.skipped += 1;
    } else if (entry.kind === 'other') {
      this.other += 1;
      if (entry.reason === DICOMDIR_NOTE) this.dicomdirs += 1;
    } else {
      // Studies and series are those the DICOM entries name, whatever else an entry is: a copy of
      // an instance can carry another study's UIDs, and the study tree of the entries shows it.
      if (entry.dicom?.study_instance_uid) this.studies.add(entry.dicom.study_instance_uid);
      if (entry.dicom?.series_instance_uid) this.series.add(entry.dicom.series_instance_uid);
      const sop = entry.dicom?.sop_instance_uid ?? null;
      if (sop === null) {
        // A header that could not be read, or one that does not say which instance it is.
        this.unreadable += 1;
        this.tally(this.unreadableReasons, entry.reason ?? NO_SOP_INSTANCE_UID, 1);
      } else {
        const identity = `${entry.dicom?.study_instance_uid ?? ''}|${entry.dicom?.series_instance_uid ?? ''}|${entry.sha256 ?? ''}`;
        const seen = this.instances.get(sop);
        if (seen === undefined) this.instances.set(sop, identity);
        // The same instance twice (a copy in another folder) is one instance and one duplicate;
        // the same UID on another study, series or other bytes is a conflict.
        else if (seen === identity) this.duplicates += 1;
        else this.conflicts += 1;
      }
    }
  }

  /** Also for entries only counted, never emitted: beyond maxEntries there may be millions. */
  countSkipped(reason: string, count: number): void {
    if (count <= 0) return;
    this.entries += count;
    this.skipped += count;
    this.tally(this.skippedReasons, reason, count);
  }

  build(): IngestSummary {
    return {
      entries: this.entries,
      studies: this.studies.size,
      series: this.series.size,
      instances: this.instances.size,
      duplicates: this.duplicates,
      conflicts: this.conflicts,
      // Filled in by the job, which can ask the database (EntriesRepository.countInstancesElsewhere).
      in_project: 0,
      other: this.other,
      dicomdirs: this.dicomdirs,
      unreadable: this.unreadable,
      unreadable_reasons: { ...this.unreadableReasons },
      skipped: this.skipped,
      skipped_reasons: { ...this.skippedReasons },
    };
  }

  private tally(reasons: Record<string, number>, reason: string, count: number): void {
    reasons[reason] = (reasons[reason] ?? 0) + count;
  }
}
