// Counts for the upload's summary: distinct studies, series and instances, other files, skips.
import type { IngestedEntry, IngestSummary } from './ingest-types.js';

export class SummaryBuilder {
  private readonly studies = new Set<string>();
  private readonly series = new Set<string>();
  private readonly instances = new Set<string>();
  private other = 0;
  private skipped = 0;
  private readonly reasons: Record<string, number> = {};

  add(entry: IngestedEntry): void {
    if (entry.kind === 'other') this.other += 1;
    else if (entry.kind === 'skipped') this.countSkipped(entry.reason ?? 'unknown', 1);
    else if (entry.dicom !== null) {
      const { study_instance_uid: study, series_instance_uid: series, sop_instance_uid: sop } = entry.dicom;
      if (study !== null) this.studies.add(study);
      if (series !== null) this.series.add(series);
      // The same instance twice (a copy in another folder) is still one instance.
      if (sop !== null) this.instances.add(sop);
    }
  }

  /** Also for entries only counted, never emitted: beyond maxEntries there may be millions. */
  countSkipped(reason: string, count: number): void {
    if (count <= 0) return;
    this.skipped += count;
    this.reasons[reason] = (this.reasons[reason] ?? 0) + count;
  }

  build(): IngestSummary {
    return {
      studies: this.studies.size,
      series: this.series.size,
      instances: this.instances.size,
      other: this.other,
      skipped: this.skipped,
      skipped_reasons: { ...this.reasons },
    };
  }
}
