// The review's rows (migration 029): a project's rules, the facts the rules judge a file by, the
// file's review columns, and the reviewers' inbox across projects.
import { sql } from 'kysely';
import { DEFAULT_REVIEW_RULES, ZReviewRules, type TRejectReason, type TReviewRules, type TReviewState } from '@portal/contract';
import type { Db } from '../db/database.js';
import { nowIso } from '../db/database.js';
import type { ProjectFileRow } from '../db/schema.js';
import { containsText } from '../db/search.js';
import type { ConflictElsewhere, InstanceFacts, PatientElsewhere } from './evaluate-rules.js';

/** States a reviewer may still decide on; a replaced file is settled. */
const DECIDABLE: TReviewState[] = ['awaiting_review', 'needs_attention', 'accepted', 'rejected'];

/** How many PatientIDs one lookup of the project's other uploads names (bound parameters stay few). */
const IDS_PER_QUERY = 500;

export interface InboxFind {
  states: TReviewState[];
  q?: string | undefined;
  offset: number;
  limit: number;
}

export class ReviewRepository {
  constructor(private readonly db: Db) {}

  /** The project's rules; the defaults until someone sets them. */
  async rulesOf(projectId: number): Promise<TReviewRules> {
    const row = await this.db.selectFrom('project_rules').select('rules').where('project_id', '=', projectId).executeTakeFirst();
    // Parsed: rules written by an older version gain the defaults of what it did not know.
    return row ? ZReviewRules.parse({ ...DEFAULT_REVIEW_RULES, ...(JSON.parse(row.rules) as object) }) : DEFAULT_REVIEW_RULES;
  }

  async setRules(projectId: number, rules: TReviewRules, by: number): Promise<void> {
    const values = { rules: JSON.stringify(rules), updated_at: nowIso(), updated_by: by };
    await this.db
      .insertInto('project_rules')
      .values({ project_id: projectId, ...values })
      .onConflict((oc) => oc.column('project_id').doUpdateSet(values))
      .execute();
  }

  /** The file as the job left it, whatever its state; undefined when gone. */
  fileOf(fileId: number): Promise<(ProjectFileRow & { deid_profile: string }) | undefined> {
    return this.db
      .selectFrom('project_files')
      .innerJoin('projects', 'projects.id', 'project_files.project_id')
      .selectAll('project_files')
      .select('projects.deid_profile')
      .where('project_files.id', '=', fileId)
      .executeTakeFirst();
  }

  /** The upload's DICOM instances with what the rules read of them. */
  instancesOf(fileId: number): Promise<InstanceFacts[]> {
    return this.db
      .selectFrom('file_entries')
      .select([
        'path',
        'sop_instance_uid',
        'study_instance_uid',
        'series_instance_uid',
        'study_description',
        'series_description',
        'study_date',
        'modality',
        'patient_id',
        'patient_sex',
        'patient_birth_date',
        'sha256',
      ])
      .where('file_id', '=', fileId)
      .where('kind', '=', 'dicom')
      .orderBy('seq')
      .execute();
  }

  /** How the project's other live uploads hold these PatientIDs (one row per upload and attributes). */
  async patientsElsewhere(file: Pick<ProjectFileRow, 'id' | 'project_id'>, patientIds: string[]): Promise<PatientElsewhere[]> {
    const found: PatientElsewhere[] = [];
    for (let i = 0; i < patientIds.length; i += IDS_PER_QUERY) {
      const rows = await this.db
        .selectFrom('file_entries as e')
        .innerJoin('project_files as f', 'f.id', 'e.file_id')
        .select(['e.patient_id', 'e.patient_sex', 'e.patient_birth_date', 'f.file'])
        .distinct()
        .where('f.project_id', '=', file.project_id)
        .where('f.id', '<>', file.id)
        .where('f.deleted_at', 'is', null)
        .where('e.kind', '=', 'dicom')
        .where('e.patient_id', 'in', patientIds.slice(i, i + IDS_PER_QUERY))
        .execute();
      for (const row of rows) if (row.patient_id !== null) found.push({ ...row, patient_id: row.patient_id });
    }
    return found;
  }

  /** Instances of this upload whose SOP Instance UID another live upload of the project holds with another study, series or bytes. */
  async conflictsElsewhere(file: Pick<ProjectFileRow, 'id' | 'project_id'>): Promise<ConflictElsewhere[]> {
    const rows = await this.db
      .selectFrom('file_entries as e')
      .innerJoin('file_entries as o', 'o.sop_instance_uid', 'e.sop_instance_uid')
      .innerJoin('project_files as f', 'f.id', 'o.file_id')
      .select(['e.path', 'e.sop_instance_uid', 'f.file'])
      .where('e.file_id', '=', file.id)
      .where('e.kind', '=', 'dicom')
      .where('o.kind', '=', 'dicom')
      .where('o.file_id', '<>', file.id)
      .where('f.project_id', '=', file.project_id)
      .where('f.deleted_at', 'is', null)
      .where((eb) =>
        eb.or([
          eb(eb.fn.coalesce('o.study_instance_uid', eb.val('')), '<>', eb.fn.coalesce('e.study_instance_uid', eb.val(''))),
          eb(eb.fn.coalesce('o.series_instance_uid', eb.val('')), '<>', eb.fn.coalesce('e.series_instance_uid', eb.val(''))),
          eb(eb.fn.coalesce('o.sha256', eb.val('')), '<>', eb.fn.coalesce('e.sha256', eb.val(''))),
        ]),
      )
      .orderBy('e.seq')
      .limit(1000)
      .execute();
    return rows.filter((r): r is ConflictElsewhere => r.sop_instance_uid !== null);
  }

  /** The rules' outcome once processing ended; only a file not yet reviewed (a rerun of its job changes nothing else). */
  async setOutcome(fileId: number, state: TReviewState, outcomes: string): Promise<boolean> {
    const result = await this.db
      .updateTable('project_files')
      .set({ review_state: state, review_rules: outcomes })
      .where('id', '=', fileId)
      .where((eb) => eb.or([eb('review_state', 'is', null), eb('review_state', 'in', ['awaiting_review', 'needs_attention'])]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** A reviewer's decision, with the audit row in the same transaction; undefined when the file is no longer decidable. */
  decide(
    fileId: number,
    decision: { state: 'accepted' | 'rejected'; reason: TRejectReason | null; note: string | null; by: number },
    andThen: (trx: Db) => Promise<void>,
  ): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('project_files')
        .set({ review_state: decision.state, review_reason: decision.reason, review_note: decision.note, reviewed_at: nowIso(), reviewed_by: decision.by })
        .where('id', '=', fileId)
        .where('deleted_at', 'is', null)
        .where('review_state', 'in', DECIDABLE)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      await andThen(trx);
      return true;
    });
  }

  /**
   * One page of the inbox: live files of live projects in `states`, newest first, found by the
   * file's, the project's or the company's name. Ids only: the rows are read as the files table reads them.
   */
  async inbox(find: InboxFind): Promise<{ rows: { id: number; project_name: string; company_id: number; company_name: string }[]; total: number }> {
    let query = this.db
      .selectFrom('project_files as f')
      .innerJoin('projects as p', 'p.id', 'f.project_id')
      .innerJoin('companies as c', 'c.id', 'f.company_id')
      .where('f.deleted_at', 'is', null)
      .where('p.deleted_at', 'is', null)
      .where('f.review_state', 'in', find.states);
    if (find.q) {
      const q = find.q;
      query = query.where((eb) => eb.or([containsText(sql.ref('f.file'), q), containsText(sql.ref('p.name'), q), containsText(sql.ref('c.companyname'), q)]));
    }
    const [rows, count] = await Promise.all([
      query.select(['f.id', 'p.name as project_name', 'c.id as company_id', 'c.companyname as company_name']).orderBy('f.id', 'desc').offset(find.offset).limit(find.limit).execute(),
      query.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  }
}
