// The stored instances WADO-RS retrieves: the project's live instances (files/live-instances.ts) of
// a study, a series or one instance, each with where its bytes are, in series and instance order.
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { liveInstances } from '../files/index.js';
import type { Scope } from '../projects/index.js';

/** The UIDs of a retrieve path: a study, one of its series, one of that series' instances. */
export interface WadoTarget {
  study: string;
  series?: string | undefined;
  instance?: string | undefined;
}

export interface StoredInstance {
  study: string;
  series: string;
  sop: string;
  storageKey: string;
  /** Where the instance's bytes start in the object (a member of a bundle), else 0. */
  offset: number;
  size: number;
  transferSyntax: string | null;
  frames: number | null;
}

export class WadoRepository {
  constructor(private readonly db: Db) {}

  /** Each SOP Instance UID once (the copy kept first when two uploads hold it). */
  async instances(projectId: number, scope: Scope, target: WadoTarget): Promise<StoredInstance[]> {
    let query = liveInstances(this.db, projectId, scope)
      .where('e.study_instance_uid', '=', target.study)
      .where('e.series_instance_uid', 'is not', null)
      .where('e.storage_key', 'is not', null)
      // Never an infected instance (issue 37), nor one of an infected file not itself found clean.
      .where((eb) =>
        eb.or([
          eb('e.scan_status', '=', 'clean'),
          eb.and([eb('f.scan_status', '!=', 'infected'), eb.or([eb('e.scan_status', 'is', null), eb('e.scan_status', '!=', 'infected')])]),
        ]),
      );
    if (target.series !== undefined) query = query.where('e.series_instance_uid', '=', target.series);
    if (target.instance !== undefined) query = query.where('e.sop_instance_uid', '=', target.instance);
    const rows = await query
      .select([
        'e.id',
        'e.study_instance_uid',
        'e.series_instance_uid',
        'e.sop_instance_uid',
        'e.storage_key',
        'e.storage_offset',
        'e.size',
        'e.transfer_syntax_uid',
        'e.number_of_frames',
      ])
      .orderBy('e.series_instance_uid')
      // Numbered instances by number, unnumbered last, the same on both engines.
      .orderBy(sql`e.instance_number is null`)
      .orderBy('e.instance_number')
      .orderBy('e.sop_instance_uid')
      .orderBy('e.id')
      .execute();
    const seen = new Set<string>();
    const instances: StoredInstance[] = [];
    for (const row of rows) {
      if (seen.has(row.sop_instance_uid!)) continue;
      seen.add(row.sop_instance_uid!);
      instances.push({
        study: row.study_instance_uid!,
        series: row.series_instance_uid!,
        sop: row.sop_instance_uid!,
        storageKey: row.storage_key!,
        offset: row.storage_offset === null ? 0 : Number(row.storage_offset),
        size: Number(row.size),
        transferSyntax: row.transfer_syntax_uid,
        frames: row.number_of_frames,
      });
    }
    return instances;
  }
}
