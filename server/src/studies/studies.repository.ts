// The project's studies, grouped by the database (a project may hold millions of entries): one
// query for a page of studies and their count, then the series and sources of that page only.
import { sql, type Expression, type SqlBool } from 'kysely';
import type { TSortOrder, TStudySort } from '@portal/contract';
import type { Db } from '../db/database.js';
import { liveInstances } from '../files/index.js';
import { containsText } from '../db/search.js';
import type { Scope } from '../projects/index.js';

export interface StudyFind {
  q?: string | undefined;
  sort: TStudySort;
  order: TSortOrder;
  offset: number;
  limit: number;
}

export interface StudyRow {
  study_instance_uid: string;
  /** As written (PN); the presenter formats it. */
  patient_name: string | null;
  patient_id: string | null;
  study_date: string | null;
  study_description: string | null;
  instances: number;
}

export interface StudySeriesRow {
  study_instance_uid: string;
  series_instance_uid: string;
  modality: string | null;
  series_description: string | null;
  instances: number;
}

export interface StudySourceRow {
  study_instance_uid: string;
  file_id: number;
  file: string;
}

/** A name typed as shown ('Doe, John') or as written ('Doe^John') finds 'Doe^John'. */
function nameWords(q: string): string {
  return q.replace(/[\s,^=]+/g, ' ').trim();
}

export class StudiesRepository {
  constructor(private readonly db: Db) {}

  /** The project's DICOM instances as every reader counts them (files/live-instances.ts). */
  private instances(projectId: number, scope: Scope) {
    return liveInstances(this.db, projectId, scope);
  }

  /**
   * One page of studies and how many match, in one pass over the project's instances (the total is
   * a window over the groups). Descriptive fields: the least value when uploads disagree.
   */
  async page(projectId: number, scope: Scope, find: StudyFind): Promise<{ rows: StudyRow[]; total: number }> {
    let grouped = this.instances(projectId, scope).groupBy('e.study_instance_uid');
    if (find.q) {
      // The values a study shows are matched, once per study rather than once per instance.
      const q = find.q;
      const words = nameWords(q);
      const matches: Expression<SqlBool>[] = [
        containsText(sql`min(${sql.ref('e.patient_id')})`, q),
        containsText(sql`min(${sql.ref('e.study_description')})`, q),
        containsText(sql.ref('e.study_instance_uid'), q),
      ];
      if (words) matches.push(containsText(sql`replace(replace(min(${sql.ref('e.patient_name')}), '^', ' '), '=', ' ')`, words));
      grouped = grouped.having(sql<SqlBool>`${sql.join(matches, sql` or `)}`);
    }
    const sortValue = {
      study_date: sql`min(e.study_date)`,
      study_description: sql`lower(min(e.study_description))`,
      patient_name: sql`lower(min(e.patient_name))`,
      instances: sql`count(distinct e.sop_instance_uid)`,
    }[find.sort];
    const rows = await grouped
      .select((eb) => [
        'e.study_instance_uid',
        eb.fn.min('e.patient_name').as('patient_name'),
        eb.fn.min('e.patient_id').as('patient_id'),
        eb.fn.min('e.study_date').as('study_date'),
        eb.fn.min('e.study_description').as('study_description'),
        eb.fn.count<number | string>('e.sop_instance_uid').distinct().as('instances'),
        eb.fn.countAll<number | string>().over().as('total'),
      ])
      // Studies without the value come last in either order, the same on both engines.
      .orderBy(sql`${sortValue} is null`)
      .orderBy(sortValue, find.order)
      .orderBy('e.study_instance_uid', find.order)
      .offset(find.offset)
      .limit(find.limit)
      .execute();
    const first = rows[0];
    // Past the last page there is no row to carry the total: count the groups alone.
    const total = first
      ? Number(first.total)
      : find.offset === 0
        ? 0
        : Number(
            (
              await this.db
                .selectFrom(grouped.select('e.study_instance_uid').as('s'))
                .select((eb) => eb.fn.countAll<number | string>().as('n'))
                .executeTakeFirstOrThrow()
            ).n,
          );
    return {
      rows: rows.map(({ total: _total, ...r }) => ({ ...r, study_instance_uid: r.study_instance_uid!, instances: Number(r.instances) })),
      total,
    };
  }

  async series(projectId: number, scope: Scope, studies: readonly string[]): Promise<StudySeriesRow[]> {
    if (studies.length === 0) return [];
    const rows = await this.instances(projectId, scope)
      .where('e.study_instance_uid', 'in', studies)
      .where('e.series_instance_uid', 'is not', null)
      .select((eb) => [
        'e.study_instance_uid',
        'e.series_instance_uid',
        eb.fn.min('e.modality').as('modality'),
        eb.fn.min('e.series_description').as('series_description'),
        eb.fn.count<number | string>('e.sop_instance_uid').distinct().as('instances'),
      ])
      .groupBy(['e.study_instance_uid', 'e.series_instance_uid'])
      .orderBy('e.study_instance_uid')
      .orderBy('e.series_instance_uid')
      .execute();
    return rows.map((r) => ({
      ...r,
      study_instance_uid: r.study_instance_uid!,
      series_instance_uid: r.series_instance_uid!,
      instances: Number(r.instances),
    }));
  }

  async sources(projectId: number, scope: Scope, studies: readonly string[]): Promise<StudySourceRow[]> {
    if (studies.length === 0) return [];
    const rows = await this.instances(projectId, scope)
      .where('e.study_instance_uid', 'in', studies)
      .select(['e.study_instance_uid', 'f.id as file_id', 'f.file'])
      .distinct()
      .orderBy('e.study_instance_uid')
      .orderBy('f.id')
      .execute();
    return rows.map((r) => ({ ...r, study_instance_uid: r.study_instance_uid! }));
  }
}
