// QIDO-RS searches over a project's live DICOM instances, grouped and paged by the database (a
// project may hold millions of entries): one query for a page of studies, series or instances,
// and for studies one more for the page's modalities. An instance stored by two uploads is one
// instance (grouped by its SOP Instance UID); a deleted upload's entries are never read.
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../db/database.js';
import { liveInstances } from '../files/index.js';
import type { Scope } from '../projects/index.js';
import type { Attribute, Level } from './qido-attributes.js';
import { ATTRIBUTES, reachable } from './qido-attributes.js';
import type { Match, Search } from './qido-query.js';

export type QidoRow = Record<string, unknown>;

const GROUPS: Record<Level, string[]> = {
  study: ['study_instance_uid'],
  series: ['study_instance_uid', 'series_instance_uid'],
  instance: ['study_instance_uid', 'series_instance_uid', 'sop_instance_uid'],
};

const col = (column: string) => sql.ref(`e.${column}`);

/** A value matched on the group: the least value when uploads of the same instance disagree. */
const grouped = (attr: Attribute, level: Level): RawBuilder<unknown> =>
  GROUPS[level].includes(attr.column!) ? sql`${col(attr.column!)}` : sql`min(${col(attr.column!)})`;

/** DICOM wildcards ('*', '?') as LIKE's, with LIKE's own characters matched as themselves. */
const likePattern = (pattern: string) => pattern.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%').replace(/\?/g, '_');

/** The condition a non-UID key puts on a group (HAVING: every instance of a study answers its study). */
function having(match: Exclude<Match, { kind: 'uids' }>, level: Level): Expression<SqlBool> {
  if (match.kind === 'modalities') {
    return sql<SqlBool>`sum(case when ${col('modality')} in (${sql.join(match.values)}) then 1 else 0 end) > 0`;
  }
  const value = grouped(match.attr, level);
  // Person names are matched without case (PS3.4 C.2.2.2.1: a server may), as people type them;
  // wildcard matching likewise for every text attribute, the same on both engines.
  const folded = match.attr.vr === 'PN';
  switch (match.kind) {
    case 'exact':
      return folded ? sql<SqlBool>`lower(${value}) = lower(${match.value})` : sql<SqlBool>`${value} = ${match.value}`;
    case 'wildcard':
      return sql<SqlBool>`lower(${value}) like lower(${likePattern(match.pattern)}) escape '\\'`;
    case 'integer':
      return sql<SqlBool>`${value} = ${match.value}`;
    case 'range': {
      const ends: RawBuilder<SqlBool>[] = [];
      if (match.from !== null) ends.push(sql<SqlBool>`${value} >= ${match.from}`);
      // A time range's end includes its fractions (120000 takes 120000.5).
      if (match.to !== null) ends.push(match.attr.matching === 'time' ? sql<SqlBool>`${value} < ${`${match.to}~`}` : sql<SqlBool>`${value} <= ${match.to}`);
      return sql<SqlBool>`(${sql.join(ends, sql` and `)})`;
    }
  }
}

export class QidoRepository {
  constructor(private readonly db: Db) {}

  /** The project's live DICOM instances within `scope` (files/live-instances.ts), each with its series. */
  private instances(projectId: number, scope: Scope) {
    return liveInstances(this.db, projectId, scope).where('e.series_instance_uid', 'is not', null);
  }

  /** One page of the groups `search` matches, each row keyed by attribute keyword. */
  async search(projectId: number, scope: Scope, search: Search): Promise<QidoRow[]> {
    const { level } = search;
    let query = this.instances(projectId, scope);
    const conditions: Expression<SqlBool>[] = [];
    for (const match of search.matches) {
      // UIDs are the instance's own: filtered before grouping, which an index can serve.
      if (match.kind === 'uids') query = query.where(col(match.attr.column!), 'in', match.values);
      else conditions.push(having(match, level));
    }
    const selections = ATTRIBUTES.filter((attr) => attr.column !== null && reachable(attr, level)).map((attr) =>
      grouped(attr, level).as(attr.keyword),
    );
    if (level === 'study') {
      selections.push(sql`count(distinct ${col('series_instance_uid')})`.as('NumberOfStudyRelatedSeries'));
      selections.push(sql`count(distinct ${col('sop_instance_uid')})`.as('NumberOfStudyRelatedInstances'));
    }
    if (level === 'series') selections.push(sql`count(distinct ${col('sop_instance_uid')})`.as('NumberOfSeriesRelatedInstances'));
    let groupedQuery = query.select(selections).groupBy(GROUPS[level].map((c) => `e.${c}` as const));
    if (conditions.length > 0) groupedQuery = groupedQuery.having(sql<SqlBool>`${sql.join(conditions, sql` and `)}`);
    // A stable order for paging, the same on both engines: numbered series and instances by number
    // (unnumbered last), then by UID.
    if (level === 'series') groupedQuery = groupedQuery.orderBy(sql`min(${col('series_number')}) is null`).orderBy(sql`min(${col('series_number')})`);
    if (level === 'instance') groupedQuery = groupedQuery.orderBy(sql`min(${col('instance_number')}) is null`).orderBy(sql`min(${col('instance_number')})`);
    for (const c of GROUPS[level]) groupedQuery = groupedQuery.orderBy(`e.${c}` as const);
    const rows = (await groupedQuery.offset(search.offset).limit(search.limit).execute()) as QidoRow[];
    if (level === 'study' && rows.length > 0) await this.addModalities(projectId, scope, rows);
    return rows;
  }

  /** ModalitiesInStudy of a page of studies, in one query. */
  private async addModalities(projectId: number, scope: Scope, rows: QidoRow[]): Promise<void> {
    const studies = rows.map((row) => row.StudyInstanceUID as string);
    const found = await this.instances(projectId, scope)
      .where('e.study_instance_uid', 'in', studies)
      .where('e.modality', 'is not', null)
      .select(['e.study_instance_uid', 'e.modality'])
      .distinct()
      .orderBy('e.study_instance_uid')
      .orderBy('e.modality')
      .execute();
    const byStudy = new Map<string, string[]>();
    for (const { study_instance_uid, modality } of found) byStudy.set(study_instance_uid!, [...(byStudy.get(study_instance_uid!) ?? []), modality!]);
    for (const row of rows) row.ModalitiesInStudy = byStudy.get(row.StudyInstanceUID as string) ?? [];
  }
}
