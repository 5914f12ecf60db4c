// The review of what arrives (issue 35): a project's arrival rules (read by whoever reads the
// project, set by SysUser or SysAdmin), judged on each upload and delivery once its processing has
// ended; a reviewer's decision (SysUser, SysAdmin); the reviewers' inbox across projects. Every
// change is audited; a decision is announced ('file.reviewed') once committed.
import {
  LIST_PER_PAGE_DEFAULT,
  ZDeidentificationReport,
  type TProjectFile,
  type TReviewDecision,
  type TReviewList,
  type TReviewQuery,
  type TReviewRules,
} from '@portal/contract';
import { can, companyScope, type Actor } from '../auth/index.js';
import type { AuditTrail } from '../audit/index.js';
import { forbidden, notFound, unprocessable } from '../errors/app-error.js';
import type { Announcer } from '../events/events.js';
import { presentFile, type FilesRepository } from '../files/index.js';
import type { ProjectsService } from '../projects/index.js';
import { evaluateRules } from './evaluate-rules.js';
import type { ReviewEvents } from './review-events.js';
import type { ReviewRepository } from './review.repository.js';

/** Who wrote the rules' outcome: the portal, once processing ended. */
const RULES_ACTOR = { id: null, name: 'arrival rules', companyId: null };

export class ReviewService {
  constructor(
    private readonly repo: ReviewRepository,
    private readonly files: FilesRepository,
    private readonly projects: ProjectsService,
    private readonly audit: AuditTrail,
    private readonly events: Announcer<ReviewEvents>,
  ) {}

  async rules(actor: Actor, projectId: number): Promise<TReviewRules> {
    const project = await this.projects.require(actor, projectId, 'read');
    return this.repo.rulesOf(project.id);
  }

  async setRules(actor: Actor, projectId: number, rules: TReviewRules): Promise<TReviewRules> {
    const project = await this.projects.require(actor, projectId, 'setRules');
    const before = await this.repo.rulesOf(project.id);
    if (JSON.stringify(before) === JSON.stringify(rules)) return before;
    await this.repo.setRules(project.id, rules, actor.userId);
    await this.audit.record({
      action: 'project.rules_changed',
      companyId: project.company_id,
      object: { type: 'project', id: project.id },
      details: { rules: JSON.stringify(rules), previous: JSON.stringify(before) },
    });
    return rules;
  }

  /**
   * Processing of a file ended 'ready' (its 'file.processed'): the project's rules judge it, and it
   * awaits review, or needs attention when a rule failed. Reads only what processing recorded.
   */
  async judge(fileId: number): Promise<void> {
    const file = await this.repo.fileOf(fileId);
    if (!file || file.deleted_at !== null || file.processing_status !== 'ready') return;
    const rules = await this.repo.rulesOf(file.project_id);
    const instances = await this.repo.instancesOf(file.id);
    const patientIds = [...new Set(instances.map((i) => i.patient_id?.trim()).filter((id): id is string => !!id))];
    const [patientsElsewhere, conflictsElsewhere] = await Promise.all([
      rules.consistent_patients ? this.repo.patientsElsewhere(file, patientIds) : Promise.resolve([]),
      rules.no_conflicting_instances ? this.repo.conflictsElsewhere(file) : Promise.resolve([]),
    ]);
    const outcomes = evaluateRules(rules, {
      instances,
      patientsElsewhere,
      conflictsElsewhere,
      deidProfile: file.deid_profile,
      deidentification: file.deid_outcome === null ? null : ZDeidentificationReport.parse(JSON.parse(file.deid_outcome)),
    });
    const failed = outcomes.filter((o) => !o.ok).map((o) => o.rule);
    const state = failed.length === 0 ? 'awaiting_review' : 'needs_attention';
    if (!(await this.repo.setOutcome(file.id, state, JSON.stringify(outcomes)))) return;
    await this.audit.record({
      action: 'file.rules_checked',
      companyId: file.company_id,
      object: { type: 'file', id: file.id },
      details: { state, failed: failed.join(',') || null, project_id: file.project_id },
      actor: RULES_ACTOR,
    });
  }

  /** Accept or reject (SysUser, SysAdmin): 404 outside the actor's companies, 403 for other roles, 409 while there is nothing to decide. */
  async decide(actor: Actor, fileId: number, body: TReviewDecision): Promise<TProjectFile> {
    const file = await this.files.find(fileId, companyScope(actor));
    if (!file) throw notFound('File not found');
    if (!can(actor, 'review', file.company_id)) throw forbidden('Only a SysUser or SysAdmin accepts or rejects what arrives');
    if (file.review_state === null) throw unprocessable('This file cannot be reviewed yet: its processing has not ended well. Wait for it to be ready');
    if (file.review_state === 'replaced') throw unprocessable('This file was replaced by a newer upload: review that one instead');
    const state = body.decision === 'accept' ? 'accepted' : 'rejected';
    const reason = state === 'rejected' ? (body.reason ?? null) : null;
    const decided = await this.repo.decide(
      file.id,
      { state, reason: reason?.code ?? null, note: reason ? reason.text : null, by: actor.userId },
      (trx) =>
        this.audit.recordIn(trx, {
          action: state === 'accepted' ? 'file.accepted' : 'file.rejected',
          companyId: file.company_id,
          object: { type: 'file', id: file.id },
          details: { name: file.file, project_id: file.project_id, previous: file.review_state, reason: reason?.code, text: reason?.text || undefined },
        }),
    );
    if (!decided) throw unprocessable('This file was replaced or deleted meanwhile: reload the list');
    await this.events.emit('file.reviewed', file.id, file.company_id, state);
    const row = await this.files.find(file.id, companyScope(actor));
    if (!row) throw notFound('File not found');
    return presentFile(row);
  }

  /** The reviewers' inbox (SysUser, SysAdmin): what is still to review, or the states asked for, across every project. */
  async inbox(actor: Actor, find: TReviewQuery): Promise<TReviewList> {
    if (!can(actor, 'review', actor.companyId)) throw forbidden('Only a SysUser or SysAdmin has the list of uploads to review');
    const page = find.page ?? 1;
    const perPage = find.per_page ?? LIST_PER_PAGE_DEFAULT;
    const { rows, total } = await this.repo.inbox({
      states: find.state ?? ['awaiting_review', 'needs_attention'],
      q: find.q,
      offset: (page - 1) * perPage,
      limit: perPage,
    });
    const files = new Map((await this.files.findMany(rows.map((r) => r.id), 'all')).map((f) => [f.id, f]));
    const data = rows.flatMap((row) => {
      const file = files.get(row.id);
      return file ? [{ ...presentFile(file), project: { id: file.project_id, name: row.project_name }, company: { id: row.company_id, name: row.company_name } }] : [];
    });
    return { data, page: { page, per_page: perPage, total } };
  }
}
