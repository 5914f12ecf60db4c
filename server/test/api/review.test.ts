// The review of what arrives (issue 35) on both databases: each project's arrival rules judged when
// processing ends, with bad deliveries made from the repo's fixtures (two PatientIDs in one study,
// a forbidden modality, a required series missing, two patients where one is expected, conflicting
// SOP Instance UIDs…) each flagged with its sentence; who may read and set the rules, accept and
// reject, and read the inbox; a rejection answered by an upload or a delivery that replaces it.
import { DEFAULT_REVIEW_RULES, ROLES, type TReviewRules, type TRole } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow, ProjectRow } from '../../src/db/schema.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { call, login } from '../http.js';
import { CT, CT_SOP, CT_STUDY, MR, removeScratch, variant, zipOf } from '../review-fixtures.js';
import { startTestServer, type TestServer } from '../server.js';
import { createUpload, encodeMetadata, patchUpload, uploadUrl } from '../tus.js';
import { listFiles, upload } from '../uploads.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read JSON answers loosely
type Json = any;

describe.each(dialects())('the review of what arrives on %s', (dialect) => {
  let server: TestServer;
  let own: CompanyRow;
  let foreign: CompanyRow;
  const tokens = new Map<string, string>();
  const as = (who: string) => tokens.get(who)!;
  const reviewed: [number, number, string][] = [];

  beforeAll(async () => {
    server = await startTestServer(dialect, {}, { jobs: true });
    server.services.events.on('file.reviewed', (fileId, companyId, decision) => void reviewed.push([fileId, companyId, decision]));
    own = await makeCompany(server.services, 'Own Hospital');
    foreign = await makeCompany(server.services, 'Foreign Clinic');
    const people: [string, CompanyRow | undefined, TRole][] = [
      ['User', own, ROLES.User],
      ['CompanyAdmin', own, ROLES.CompanyAdmin],
      ['SysUser', undefined, ROLES.SysUser],
      ['SysAdmin', undefined, ROLES.SysAdmin],
      ['foreign User', foreign, ROLES.User],
      ['foreign CompanyAdmin', foreign, ROLES.CompanyAdmin],
    ];
    for (const [who, company, role] of people) {
      const user = await makeUser(server.services, { ...(company ? { company } : {}), role });
      tokens.set(who, await login(server.api, user.username, PASSWORD));
    }
  });
  afterAll(async () => {
    await server.close();
    removeScratch();
  });

  const rulesUrl = (id: number | string) => `${server.api}/study-petitions/${id}/rules`;
  const reviewUrl = (id: number | string) => `${server.api}/study-petitions-files/${id}/review`;

  async function project(rules: Partial<TReviewRules> = {}, company = own): Promise<ProjectRow> {
    const p = await makeProject(server.services, company, `Cohort ${Math.random().toString(36).slice(2, 8)}`);
    if (Object.keys(rules).length > 0) {
      const set = await call(rulesUrl(p.id), { method: 'PUT', token: as('SysAdmin'), json: { ...DEFAULT_REVIEW_RULES, ...rules } });
      expect(set.status, JSON.stringify(set.body)).toBe(200);
    }
    return p;
  }

  /** The file's row once its rules were judged (review.state set), as the files table lists it. */
  async function judged(projectId: number, fileId: number, token = as('User')): Promise<Json> {
    for (let i = 0; i < 600; i += 1) {
      const row = (await listFiles(server.api, token, projectId)).body.data.find((f: { id: number }) => f.id === fileId);
      if (row.processing.status === 'failed') throw new Error(`processing failed: ${row.processing.error}`);
      if (row.review.state !== null) return row;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the rules never judged the file');
  }

  async function send(p: ProjectRow, name: string, data: Buffer, token = as('User')): Promise<Json> {
    const answer = await upload(server.api, token, { name, data }, p.id);
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    // Before processing ends there is nothing to review yet.
    expect(answer.body.data[0].review).toEqual({ state: null, reason: null, replaced_by: null, replaces: null, rules: [] });
    return judged(p.id, answer.body.data[0].id, token);
  }

  const outcome = (row: Json, rule: string) => row.review.rules.find((r: { rule: string }) => r.rule === rule);

  describe('arrival rules, judged when processing ends', () => {
    it('a project without rules has the defaults, and a clean upload awaits review with every rule passed', async () => {
      const p = await project();
      expect(await call(rulesUrl(p.id), { token: as('User') })).toMatchObject({ status: 200, body: { data: [DEFAULT_REVIEW_RULES] } });
      const row = await send(p, 'ct.dcm', variant(CT));
      expect(row.review).toMatchObject({ state: 'awaiting_review', reason: null, replaced_by: null });
      expect(row.review.rules).toEqual([
        { rule: 'one_patient_per_study', ok: true, message: 'Each study holds one PatientID.' },
        { rule: 'consistent_patients', ok: true, message: 'Each PatientID keeps one sex and birth date across the project’s uploads.' },
        { rule: 'no_conflicting_instances', ok: true, message: 'No SOP Instance UID is used for another study, series or other bytes.' },
      ]);
    });

    it('flags two PatientIDs in one study, naming the study, the PatientIDs and their files', async () => {
      const p = await project();
      const row = await send(p, 'mixed.zip', zipOf({ 'a/one.dcm': variant(CT), 'b/two.dcm': variant(CT, { sopUid: '1.2.826.0.1.3680043.10.1.1', patientId: 'OTHER7' }) }));
      expect(row.review.state).toBe('needs_attention');
      expect(outcome(row, 'one_patient_per_study')).toEqual({
        rule: 'one_patient_per_study',
        ok: false,
        message: `1 study holds more than one PatientID: study ${CT_STUDY} holds 2 PatientIDs: PatientID 98890234 in a/one.dcm, PatientID OTHER7 in b/two.dcm.`,
      });
    });

    it('flags a forbidden modality, naming the series and its file', async () => {
      const p = await project({ modalities: ['CT'] });
      const row = await send(p, 'mr.zip', zipOf({ 'ct.dcm': variant(CT), 'mr.dcm': variant(MR, { seriesDescription: 'T1 AX' }) }));
      expect(row.review.state).toBe('needs_attention');
      expect(outcome(row, 'modalities')).toEqual({
        rule: 'modalities',
        ok: false,
        message: '1 series is of a modality the project does not allow (only CT): series “T1 AX” (MR) in mr.dcm.',
      });
    });

    it('flags a required series missing, naming what was looked for and the closest series', async () => {
      const p = await project({ required_series: [{ modality: 'MR', description: '*t1*', min_instances: 2 }, { modality: 'CT', description: '', min_instances: 1 }] });
      const row = await send(p, 'study.zip', zipOf({ 'mr.dcm': variant(MR, { seriesDescription: 'T1 AX' }), 'ct.dcm': variant(CT) }));
      expect(row.review.state).toBe('needs_attention');
      expect(outcome(row, 'required_series')).toEqual({
        rule: 'required_series',
        ok: false,
        message: '1 required series is missing: MR “*t1*” with at least 2 instances (series “T1 AX” (MR) holds only 1 instance).',
      });
    });

    it('flags two patients where exactly one is expected, naming each patient’s files', async () => {
      const p = await project({ patients_per_upload: { mode: 'exactly', count: 1 } });
      const row = await send(p, 'two.zip', zipOf({ 'ct.dcm': variant(CT), 'mr.dcm': variant(MR) }));
      expect(row.review.state).toBe('needs_attention');
      expect(outcome(row, 'patients_per_upload')).toEqual({
        rule: 'patients_per_upload',
        ok: false,
        message: 'The upload holds 2 patients where the project expects exactly 1: PatientID 98890234 in ct.dcm; PatientID 4MR1 in mr.dcm.',
      });
      const single = await send(p, 'one.dcm', variant(CT));
      expect(outcome(single, 'patients_per_upload')).toEqual({ rule: 'patients_per_upload', ok: true, message: 'The upload holds 1 patient, as the project expects (exactly 1).' });
    });

    it('counts an instance repeated with another study as a conflict, not a duplicate, keeps its study in the summary, and flags it', async () => {
      const p = await project();
      const row = await send(
        p,
        'conflict.zip',
        zipOf({ 'a/one.dcm': variant(CT), 'b/copy.dcm': variant(CT), 'c/other-study.dcm': variant(CT, { studyUid: '1.2.826.0.1.3680043.10.1.2' }) }),
      );
      expect(row.processing.summary).toMatchObject({ entries: 3, instances: 1, duplicates: 1, conflicts: 1, studies: 2 });
      expect(row.review.state).toBe('needs_attention');
      expect(outcome(row, 'no_conflicting_instances')).toEqual({
        rule: 'no_conflicting_instances',
        ok: false,
        message: `1 SOP Instance UID is used for another study, series or other bytes (conflicts, not duplicates): a/one.dcm and c/other-study.dcm share SOP Instance UID ${CT_SOP}.`,
      });
    });

    it('flags a conflict and another sex with the project’s earlier uploads', async () => {
      const p = await project();
      await send(p, 'first.dcm', variant(CT));
      const later = await send(p, 'later.dcm', variant(CT, { seriesUid: '1.2.826.0.1.3680043.10.1.3', patientSex: 'F' }));
      expect(later.review.state).toBe('needs_attention');
      expect(outcome(later, 'no_conflicting_instances')).toMatchObject({ ok: false, message: expect.stringContaining(`later.dcm repeats SOP Instance UID ${CT_SOP} of upload “first.dcm”`) });
      expect(outcome(later, 'consistent_patients')).toEqual({
        rule: 'consistent_patients',
        ok: false,
        message: '1 patient has conflicting attributes: PatientID 98890234 has sex F in later.dcm but sex M in upload “first.dcm”.',
      });
      // The same instance again, byte for byte, is no conflict: it is already in the project.
      const again = await send(p, 'again.dcm', variant(CT));
      expect(outcome(again, 'no_conflicting_instances')).toMatchObject({ ok: false, message: expect.stringContaining('of upload “later.dcm”') });
      expect(again.processing.summary).toMatchObject({ in_project: 1, conflicts: 0 });
    });

    it('flags a study outside the project’s dates', async () => {
      const p = await project({ study_dates: { from: '2020-01-01', to: null } });
      const row = await send(p, 'old.dcm', variant(CT));
      expect(outcome(row, 'study_dates')).toEqual({
        rule: 'study_dates',
        ok: false,
        message: `1 study is outside the project’s study dates (from 2020-01-01): study ${CT_STUDY} of 2001-01-01 in old.dcm.`,
      });
    });

    it('judges a 1,000-file delivery within 30 seconds', async () => {
      const p = await project({ modalities: ['CT'], patients_per_upload: { mode: 'at_most', count: 1 } });
      const base = variant(CT);
      const entries: Record<string, Buffer> = {};
      // Each a distinct instance: its SOP Instance UID rewritten in place, at the same length.
      for (let i = 0; i < 1000; i += 1) {
        const copy = Buffer.from(base);
        const uid = `${CT_SOP.slice(0, -6)}${String(i).padStart(6, '0')}`;
        // Both places: the file meta's Media Storage SOP Instance UID and the dataset's own.
        for (let at = copy.indexOf(CT_SOP); at >= 0; at = copy.indexOf(CT_SOP, at + 1)) copy.write(uid, at, 'latin1');
        entries[`DICOM/${String(i).padStart(4, '0')}.dcm`] = copy;
      }
      const started = Date.now();
      const row = await send(p, 'big.zip', zipOf(entries));
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(row.processing.summary).toMatchObject({ instances: 1000, conflicts: 0 });
      expect(row.review.state).toBe('awaiting_review');
    }, 60_000);

    it('refuses rules that make no sense, in words', async () => {
      const p = await project();
      const put = (json: unknown) => call(rulesUrl(p.id), { method: 'PUT', token: as('SysAdmin'), json });
      const bad = await put({ ...DEFAULT_REVIEW_RULES, modalities: ['C T'] });
      expect(bad).toMatchObject({ status: 400, body: { message: expect.stringContaining('a modality is its DICOM code') } });
      const window = await put({ ...DEFAULT_REVIEW_RULES, study_dates: { from: '2021-01-01', to: '2020-01-01' } });
      expect(window).toMatchObject({ status: 400, body: { message: expect.stringContaining('study_dates.from must not be after study_dates.to') } });
      expect(await put({ ...DEFAULT_REVIEW_RULES, surprise: true })).toMatchObject({ status: 400 });
      expect(await put({ ...DEFAULT_REVIEW_RULES, modalities: ['ct', ' mr '] })).toMatchObject({ status: 200, body: { data: [{ modalities: ['CT', 'MR'] }] } });
    });
  });

  describe('who may do what', () => {
    it('rules: read by the project’s company and the operator, set by SysUser and SysAdmin only, unknown to another company', async () => {
      const p = await project();
      for (const who of ['User', 'CompanyAdmin', 'SysUser', 'SysAdmin']) expect((await call(rulesUrl(p.id), { token: as(who) })).status, who).toBe(200);
      for (const who of ['foreign User', 'foreign CompanyAdmin']) {
        expect(await call(rulesUrl(p.id), { token: as(who) }), who).toMatchObject({ status: 404, body: { message: 'Project not found' } });
        expect(await call(rulesUrl(p.id), { method: 'PUT', token: as(who), json: DEFAULT_REVIEW_RULES }), who).toMatchObject({ status: 404 });
      }
      for (const who of ['User', 'CompanyAdmin']) {
        expect(await call(rulesUrl(p.id), { method: 'PUT', token: as(who), json: DEFAULT_REVIEW_RULES }), who).toMatchObject({ status: 403 });
      }
      for (const who of ['SysUser', 'SysAdmin']) {
        const rules = { ...DEFAULT_REVIEW_RULES, modalities: [who === 'SysUser' ? 'MR' : 'CT'] };
        expect(await call(rulesUrl(p.id), { method: 'PUT', token: as(who), json: rules }), who).toMatchObject({ status: 200, body: { data: [rules] } });
      }
      expect((await call(rulesUrl(999_999), { token: as('SysAdmin') })).status).toBe(404);
      expect((await call(`${server.api}/study-petitions/x/rules`, { token: as('SysAdmin') })).status).toBe(404);
      const audited = await server.services.handle.db.selectFrom('audit_log').select(['action', 'object_id']).where('action', '=', 'project.rules_changed').execute();
      expect(audited.filter((a) => String(a.object_id) === String(p.id))).toHaveLength(2);
    });

    it('decisions: SysUser and SysAdmin accept and reject; the company’s own roles 403; another company 404', async () => {
      const p = await project();
      const row = await send(p, 'ct.dcm', variant(CT));
      const decide = (who: string, json: unknown) => call(reviewUrl(row.id), { token: as(who), json });
      for (const who of ['User', 'CompanyAdmin']) {
        expect(await decide(who, { decision: 'accept' }), who).toMatchObject({ status: 403, body: { message: 'Only a SysUser or SysAdmin accepts or rejects what arrives' } });
      }
      for (const who of ['foreign User', 'foreign CompanyAdmin']) expect(await decide(who, { decision: 'accept' }), who).toMatchObject({ status: 404, body: { message: 'File not found' } });
      expect(await call(reviewUrl(999_999), { token: as('SysAdmin'), json: { decision: 'accept' } })).toMatchObject({ status: 404 });

      const accepted = await decide('SysUser', { decision: 'accept' });
      expect(accepted).toMatchObject({ status: 200, body: { data: [{ id: row.id, review: { state: 'accepted', reason: null } }] } });
      expect(await decide('SysAdmin', { decision: 'reject' })).toMatchObject({
        status: 400,
        body: { message: expect.stringContaining('A rejection needs a reason') },
      });
      expect(await decide('SysAdmin', { decision: 'maybe' })).toMatchObject({ status: 400, body: { message: expect.stringContaining('decision must be accept or reject') } });
      expect(await decide('SysAdmin', { decision: 'reject', reason: { code: 'bored' } })).toMatchObject({ status: 400, body: { message: expect.stringContaining('reason.code must be one of') } });
      const rejected = await decide('SysAdmin', { decision: 'reject', reason: { code: 'missing_series', text: 'The T1 series is not there.' } });
      expect(rejected).toMatchObject({ status: 200, body: { data: [{ review: { state: 'rejected', reason: { code: 'missing_series', text: 'The T1 series is not there.' } } }] } });

      // The partner sees the state and the reason in the files table.
      const partner = (await listFiles(server.api, as('User'), p.id)).body.data.find((f: Json) => f.id === row.id);
      expect(partner.review).toMatchObject({ state: 'rejected', reason: { code: 'missing_series', text: 'The T1 series is not there.' } });
      expect(reviewed.filter(([id]) => id === row.id)).toEqual([
        [row.id, own.id, 'accepted'],
        [row.id, own.id, 'rejected'],
      ]);
      const audited = await server.services.handle.db
        .selectFrom('audit_log')
        .select(['action', 'details'])
        .where('object_type', '=', 'file')
        .where('object_id', '=', String(row.id))
        .orderBy('seq')
        .execute();
      expect(audited.map((a) => a.action)).toEqual(['upload.completed', 'file.rules_checked', 'file.accepted', 'file.rejected']);
      expect(JSON.parse(audited[3]!.details!)).toMatchObject({ reason: 'missing_series', text: 'The T1 series is not there.', previous: 'accepted' });
    });

    it('the inbox: SysUser and SysAdmin only, across companies, newest first, paged, searched, with the rules on each line', async () => {
      const first = await project({}, own);
      const second = await project({}, foreign);
      const a = await send(first, 'inbox-alpha.dcm', variant(CT));
      const b = await send(second, 'inbox-beta.zip', zipOf({ 'x.dcm': variant(CT), 'y.dcm': variant(CT, { sopUid: '1.2.826.0.1.3680043.10.1.9', patientId: 'P2' }) }), as('foreign User'));
      for (const who of ['User', 'CompanyAdmin', 'foreign CompanyAdmin']) {
        expect(await call(`${server.api}/review`, { token: as(who) }), who).toMatchObject({ status: 403, body: { message: 'Only a SysUser or SysAdmin has the list of uploads to review' } });
      }
      const inbox = await call(`${server.api}/review?q=inbox-&per_page=1`, { token: as('SysUser') });
      expect(inbox).toMatchObject({ status: 200, body: { page: { page: 1, per_page: 1, total: 2 } } });
      expect(inbox.body.data[0]).toMatchObject({
        id: b.id,
        file: 'inbox-beta.zip',
        project: { id: second.id, name: second.name },
        company: { id: foreign.id, name: 'Foreign Clinic' },
        review: { state: 'needs_attention', rules: expect.arrayContaining([expect.objectContaining({ rule: 'one_patient_per_study', ok: false })]) },
      });
      const next = await call(`${server.api}/review?q=inbox-&per_page=1&page=2`, { token: as('SysAdmin') });
      expect(next.body.data.map((f: Json) => f.id)).toEqual([a.id]);
      // By the project's or the company's name, and by state.
      expect((await call(`${server.api}/review?q=${encodeURIComponent('Foreign Clinic')}`, { token: as('SysAdmin') })).body.data.map((f: Json) => f.id)).toContain(b.id);
      expect((await call(`${server.api}/review?q=inbox-&state=needs_attention`, { token: as('SysAdmin') })).body.data.map((f: Json) => f.id)).toEqual([b.id]);
      await call(reviewUrl(a.id), { token: as('SysAdmin'), json: { decision: 'accept' } });
      expect((await call(`${server.api}/review?q=inbox-`, { token: as('SysAdmin') })).body.data.map((f: Json) => f.id)).toEqual([b.id]);
      expect((await call(`${server.api}/review?q=inbox-&state=accepted`, { token: as('SysAdmin') })).body.data.map((f: Json) => f.id)).toEqual([a.id]);
      expect(await call(`${server.api}/review?state=bogus`, { token: as('SysAdmin') })).toMatchObject({ status: 400, body: { message: expect.stringContaining('must be one or more of awaiting_review') } });
    });
  });

  describe('a rejected upload answered by one that replaces it', () => {
    async function rejectedIn(p: ProjectRow): Promise<Json> {
      const row = await send(p, 'first-try.dcm', variant(CT));
      const rejected = await call(reviewUrl(row.id), { token: as('SysUser'), json: { decision: 'reject', reason: { code: 'wrong_patient', text: '' } } });
      expect(rejected.status).toBe(200);
      return row;
    }

    async function uploadReplacing(p: ProjectRow, replaces: number | string, token = as('User')) {
      const form = new FormData();
      form.append('studypetitionid', String(p.id));
      form.append('replaces', String(replaces));
      form.append('file', new Blob([new Uint8Array(variant(CT))]), 'second-try.dcm');
      const response = await fetch(`${server.api}/upload-study-petitions-files`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
      return { status: response.status, body: (await response.json()) as Json };
    }

    it('by an upload (multipart): the old one becomes replaced, once, and only a rejected file of the same project can be', async () => {
      const p = await project();
      const old = await rejectedIn(p);
      const accepted = await send(p, 'fine.dcm', variant(CT));
      const elsewhere = await rejectedIn(await project());
      const message = (id: number) => `File ${id} cannot be replaced: only a rejected upload or delivery of the same project can be, and only once. Check the file named in replaces, or send the upload without it`;
      expect(await uploadReplacing(p, accepted.id)).toMatchObject({ status: 422, body: { message: message(accepted.id) } });
      expect(await uploadReplacing(p, elsewhere.id)).toMatchObject({ status: 422, body: { message: message(elsewhere.id) } });
      const replacing = await uploadReplacing(p, old.id);
      expect(replacing.status).toBe(201);
      const newId = replacing.body.data[0].id;
      expect(replacing.body.data[0].review.replaces).toBe(old.id);
      const before = (await listFiles(server.api, as('User'), p.id)).body.data.find((f: Json) => f.id === old.id);
      expect(before.review).toMatchObject({ state: 'replaced', replaced_by: newId, reason: { code: 'wrong_patient' } });
      expect(await uploadReplacing(p, old.id)).toMatchObject({ status: 422, body: { message: message(old.id) } });
      // A replaced file is settled; its replacement is reviewed in its turn.
      expect(await call(reviewUrl(old.id), { token: as('SysAdmin'), json: { decision: 'accept' } })).toMatchObject({ status: 422 });
      expect((await judged(p.id, newId)).review.state).toBe('awaiting_review');
      // The files table filters by review state.
      const filtered = await call(`${server.api}/study-petitions-files?study_petition_id=${p.id}&review=replaced,rejected`, { token: as('User') });
      expect(filtered.body.data.map((f: Json) => f.id)).toEqual([old.id]);
      const audited = await server.services.handle.db.selectFrom('audit_log').select('details').where('action', '=', 'file.replaced').where('object_id', '=', String(old.id)).execute();
      expect(audited.map((a) => JSON.parse(a.details!))).toEqual([expect.objectContaining({ replaced_by: newId })]);
    });

    it('by a resumable upload naming it in its metadata, refused before a byte when it cannot be replaced', async () => {
      const p = await project();
      const old = await rejectedIn(p);
      const data = variant(CT);
      const refused = await createUpload(server.api, as('User'), { size: data.length, metadata: encodeMetadata({ filename: 'x.dcm', studypetitionid: String(p.id), replaces: '999999' }) });
      expect(refused).toMatchObject({ status: 422 });
      const created = await createUpload(server.api, as('User'), { size: data.length, metadata: encodeMetadata({ filename: 'tus.dcm', studypetitionid: String(p.id), replaces: String(old.id) }) });
      expect(created.status).toBe(201);
      const done = await patchUpload(uploadUrl(server.api, created), as('User'), 0, data);
      expect(done.status).toBe(204);
      const rows = (await listFiles(server.api, as('User'), p.id)).body.data;
      const fresh = rows.find((f: Json) => f.file === 'tus.dcm');
      expect(rows.find((f: Json) => f.id === old.id).review).toMatchObject({ state: 'replaced', replaced_by: fresh.id });
    });

    it('by a delivery named at its creation: the old one is replaced when the delivery completes', async () => {
      const p = await project();
      const old = await rejectedIn(p);
      const create = (replaces: number) => call(`${server.api}/deliveries`, { method: 'POST', token: as('User'), json: { studypetitionid: p.id, name: 'second CD', replaces } });
      expect(await create(999_999)).toMatchObject({ status: 422 });
      const delivery = await create(old.id);
      expect(delivery.status).toBe(201);
      const id = delivery.body.data[0].id;
      const data = variant(CT);
      const sent = await createUpload(server.api, as('User'), { size: data.length, body: data, metadata: encodeMetadata({ filename: 'IM1', delivery: String(id), relativePath: 'DICOM/IM1' }) });
      expect(sent.status).toBe(201);
      expect((await listFiles(server.api, as('User'), p.id)).body.data.find((f: Json) => f.id === old.id).review.state).toBe('rejected');
      const completed = await call(`${server.api}/deliveries/${id}/complete`, { method: 'POST', token: as('User') });
      expect(completed.status).toBe(200);
      const fileId = completed.body.data[0].file_id;
      expect((await listFiles(server.api, as('User'), p.id)).body.data.find((f: Json) => f.id === old.id).review).toMatchObject({ state: 'replaced', replaced_by: fileId });
      expect((await judged(p.id, fileId)).review).toMatchObject({ state: 'awaiting_review', replaces: old.id });
    });
  });
});
