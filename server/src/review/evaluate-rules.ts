// The arrival rules judged on one processed upload or delivery (issue 35, item 1): pure functions of
// what its DICOM entries say and what the project already holds, each answering pass or fail with a
// sentence that names the series or files at fault. The queries that gather the facts are
// review.repository.ts; this file decides.
import type { TDeidentificationReport, TReviewRules, TRuleOutcome } from '@portal/contract';

/** One DICOM instance of the upload, as processing recorded it. */
export interface InstanceFacts {
  path: string;
  sop_instance_uid: string | null;
  study_instance_uid: string | null;
  series_instance_uid: string | null;
  study_description: string | null;
  series_description: string | null;
  study_date: string | null;
  modality: string | null;
  patient_id: string | null;
  patient_sex: string | null;
  patient_birth_date: string | null;
  sha256: string | null;
}

/** A patient as another live upload of the project holds it. */
export interface PatientElsewhere {
  patient_id: string;
  patient_sex: string | null;
  patient_birth_date: string | null;
  file: string;
}

/** An instance of this upload whose SOP Instance UID another live upload of the project holds differently. */
export interface ConflictElsewhere {
  path: string;
  sop_instance_uid: string;
  file: string;
}

export interface RuleFacts {
  instances: InstanceFacts[];
  patientsElsewhere: PatientElsewhere[];
  conflictsElsewhere: ConflictElsewhere[];
  /** The project's de-identification profile ('off': identity is kept as sent, the rule does not apply). */
  deidProfile: string;
  deidentification: TDeidentificationReport | null;
}

const LISTED = 5;

/** 'a, b, c and 4 more': a person reads the first few, and how many else. */
export function listed(items: string[], max = LISTED): string {
  const unique = [...new Set(items)];
  if (unique.length <= max) return joinWords(unique);
  return `${unique.slice(0, max).join(', ')} and ${unique.length - max} more`;
}

function joinWords(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const quoted = (text: string) => `“${text}”`;

interface Group {
  key: string;
  members: InstanceFacts[];
}

function groupBy(instances: InstanceFacts[], key: (i: InstanceFacts) => string | null): Group[] {
  const groups = new Map<string, InstanceFacts[]>();
  for (const instance of instances) {
    const k = key(instance);
    if (k === null) continue;
    let members = groups.get(k);
    if (!members) groups.set(k, (members = []));
    members.push(instance);
  }
  return [...groups].map(([k, members]) => ({ key: k, members }));
}

/** A series as a person recognises it: its description and modality, else its UID. */
function seriesName(first: InstanceFacts): string {
  const description = first.series_description?.trim();
  const what = description ? `series ${quoted(description)}` : `series ${first.series_instance_uid ?? '(no UID)'}`;
  return `${what} (${first.modality?.trim() || 'no modality'})`;
}

function studyName(first: InstanceFacts): string {
  const description = first.study_description?.trim();
  return description ? `study ${quoted(description)} (${first.study_instance_uid})` : `study ${first.study_instance_uid}`;
}

const paths = (members: InstanceFacts[]) => listed(members.map((m) => m.path));
const patientOf = (i: InstanceFacts) => i.patient_id?.trim() ?? '';
const shownPatient = (id: string) => (id === '' ? 'no PatientID' : `PatientID ${id}`);

function modalities(rules: TReviewRules, facts: RuleFacts): TRuleOutcome | null {
  if (rules.modalities.length === 0) return null;
  const allowed = new Set(rules.modalities);
  const series = groupBy(facts.instances, (i) => i.series_instance_uid ?? `path:${i.path}`);
  const wrong = series.filter((s) => !allowed.has(s.members[0]!.modality?.trim().toUpperCase() ?? ''));
  const list = joinWords(rules.modalities);
  if (wrong.length === 0) return { rule: 'modalities', ok: true, message: `Every series is of a modality the project allows (${list}).` };
  const named = wrong.slice(0, LISTED).map((s) => `${seriesName(s.members[0]!)} in ${paths(s.members)}`);
  const more = wrong.length > LISTED ? `; and ${wrong.length - LISTED} more` : '';
  return {
    rule: 'modalities',
    ok: false,
    message: `${plural(wrong.length, 'series is', 'series are')} of a modality the project does not allow (only ${list}): ${named.join('; ')}${more}.`,
  };
}

function patientsPerUpload(rules: TReviewRules, facts: RuleFacts): TRuleOutcome | null {
  const expected = rules.patients_per_upload;
  if (!expected) return null;
  const patients = groupBy(facts.instances, patientOf);
  const n = patients.length;
  const wanted = `${expected.mode === 'exactly' ? 'exactly' : 'at most'} ${expected.count}`;
  const ok = expected.mode === 'exactly' ? n === expected.count : n <= expected.count;
  if (ok) return { rule: 'patients_per_upload', ok, message: `The upload holds ${plural(n, 'patient', 'patients')}, as the project expects (${wanted}).` };
  const named = patients.slice(0, LISTED).map((p) => `${shownPatient(p.key)} in ${paths(p.members)}`);
  const more = patients.length > LISTED ? `; and ${patients.length - LISTED} more` : '';
  return {
    rule: 'patients_per_upload',
    ok,
    message: `The upload holds ${plural(n, 'patient', 'patients')} where the project expects ${wanted}${n > 0 ? `: ${named.join('; ')}${more}` : ''}.`,
  };
}

/** A description pattern without case, '*' standing for any text; empty matches every description. */
export function descriptionMatches(pattern: string, description: string | null): boolean {
  if (pattern.trim() === '' || pattern.trim() === '*') return true;
  const source = pattern
    .trim()
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`, 'is').test((description ?? '').trim());
}

function requiredSeries(rules: TReviewRules, facts: RuleFacts): TRuleOutcome | null {
  if (rules.required_series.length === 0) return null;
  const series = groupBy(facts.instances, (i) => i.series_instance_uid);
  const missing: string[] = [];
  const found: string[] = [];
  for (const required of rules.required_series) {
    const what = `${required.modality}${required.description.trim() ? ` ${quoted(required.description.trim())}` : ''} with at least ${plural(required.min_instances, 'instance', 'instances')}`;
    const candidates = series.filter((s) => (s.members[0]!.modality?.trim().toUpperCase() ?? '') === required.modality && descriptionMatches(required.description, s.members[0]!.series_description));
    const enough = candidates.find((s) => new Set(s.members.map((m) => m.sop_instance_uid)).size >= required.min_instances);
    if (enough) {
      found.push(`${what} (${seriesName(enough.members[0]!)})`);
      continue;
    }
    const closest = candidates.sort((a, b) => b.members.length - a.members.length)[0];
    missing.push(closest ? `${what} (${seriesName(closest.members[0]!)} holds only ${plural(new Set(closest.members.map((m) => m.sop_instance_uid)).size, 'instance', 'instances')})` : what);
  }
  if (missing.length === 0) return { rule: 'required_series', ok: true, message: `Every required series is there: ${found.join('; ')}.` };
  return {
    rule: 'required_series',
    ok: false,
    message: `${plural(missing.length, 'required series is', 'required series are')} missing: ${missing.join('; ')}.`,
  };
}

/** 'YYYYMMDD' as DICOM writes it, to compare with the rules' 'YYYY-MM-DD'; null when it is not a date. */
function isoDate(dicomDate: string | null): string | null {
  const match = /^(\d{4})(\d\d)(\d\d)$/.exec(dicomDate?.trim() ?? '') ?? /^(\d{4})\.(\d\d)\.(\d\d)$/.exec(dicomDate?.trim() ?? '');
  return match ? `${match[1]}-${match[2]}-${match[3]}` : null;
}

function studyDates(rules: TReviewRules, facts: RuleFacts): TRuleOutcome | null {
  const window = rules.study_dates;
  if (!window || (window.from === null && window.to === null)) return null;
  const span = window.from && window.to ? `${window.from} to ${window.to}` : window.from ? `from ${window.from}` : `until ${window.to}`;
  const studies = groupBy(facts.instances, (i) => i.study_instance_uid);
  const outside = studies.filter((s) => {
    const date = isoDate(s.members[0]!.study_date);
    return date === null || (window.from !== null && date < window.from) || (window.to !== null && date > window.to);
  });
  if (outside.length === 0) return { rule: 'study_dates', ok: true, message: `Every study is dated within the project’s window (${span}).` };
  const named = outside.slice(0, LISTED).map((s) => {
    const date = isoDate(s.members[0]!.study_date);
    return `${studyName(s.members[0]!)} ${date ? `of ${date}` : 'has no study date'} in ${paths(s.members)}`;
  });
  const more = outside.length > LISTED ? `; and ${outside.length - LISTED} more` : '';
  return {
    rule: 'study_dates',
    ok: false,
    message: `${plural(outside.length, 'study is', 'studies are')} outside the project’s study dates (${span}): ${named.join('; ')}${more}.`,
  };
}

function onePatientPerStudy(rules: TReviewRules, facts: RuleFacts): TRuleOutcome | null {
  if (!rules.one_patient_per_study) return null;
  const studies = groupBy(facts.instances, (i) => i.study_instance_uid);
  const mixed = studies
    .map((study) => ({ study, patients: groupBy(study.members, patientOf) }))
    .filter(({ patients }) => patients.length > 1);
  if (mixed.length === 0) return { rule: 'one_patient_per_study', ok: true, message: 'Each study holds one PatientID.' };
  const named = mixed.slice(0, LISTED).map(
    ({ study, patients }) =>
      `${studyName(study.members[0]!)} holds ${patients.length} PatientIDs: ${patients
        .slice(0, LISTED)
        .map((p) => `${shownPatient(p.key)} in ${paths(p.members)}`)
        .join(', ')}`,
  );
  const more = mixed.length > LISTED ? `; and ${mixed.length - LISTED} more` : '';
  return {
    rule: 'one_patient_per_study',
    ok: false,
    message: `${plural(mixed.length, 'study holds', 'studies hold')} more than one PatientID: ${named.join('; ')}${more}.`,
  };
}

/** Sex and birth date as kept ('' when not kept): a value only disagrees with another kept value. */
function attributes(sex: string | null, birth: string | null) {
  return { sex: sex?.trim().toUpperCase() ?? '', birth: birth?.trim() ?? '' };
}
const disagree = (a: string, b: string) => a !== '' && b !== '' && a !== b;
const described = (a: { sex: string; birth: string }) => [a.sex && `sex ${a.sex}`, a.birth && `birth date ${a.birth}`].filter(Boolean).join(', ') || 'no sex or birth date';

function consistentPatients(rules: TReviewRules, facts: RuleFacts): TRuleOutcome | null {
  if (!rules.consistent_patients) return null;
  const faults: string[] = [];
  for (const patient of groupBy(facts.instances, (i) => patientOf(i) || null)) {
    const here = patient.members.map((m) => ({ ...attributes(m.patient_sex, m.patient_birth_date), where: m.path }));
    const elsewhere = facts.patientsElsewhere
      .filter((p) => p.patient_id.trim() === patient.key)
      .map((p) => ({ ...attributes(p.patient_sex, p.patient_birth_date), where: `upload ${quoted(p.file)}` }));
    const all = [...here, ...elsewhere];
    const first = all[0]!;
    const other = all.find((a) => disagree(a.sex, first.sex) || disagree(a.birth, first.birth));
    if (other) faults.push(`PatientID ${patient.key} has ${described(first)} in ${first.where} but ${described(other)} in ${other.where}`);
  }
  if (faults.length === 0) return { rule: 'consistent_patients', ok: true, message: 'Each PatientID keeps one sex and birth date across the project’s uploads.' };
  const more = faults.length > LISTED ? `; and ${faults.length - LISTED} more` : '';
  return {
    rule: 'consistent_patients',
    ok: false,
    message: `${plural(faults.length, 'patient has', 'patients have')} conflicting attributes: ${faults.slice(0, LISTED).join('; ')}${more}.`,
  };
}

function noConflictingInstances(rules: TReviewRules, facts: RuleFacts): TRuleOutcome | null {
  if (!rules.no_conflicting_instances) return null;
  const faults: string[] = [];
  for (const same of groupBy(facts.instances, (i) => i.sop_instance_uid)) {
    const first = same.members[0]!;
    const others = same.members.filter(
      (m) => m.study_instance_uid !== first.study_instance_uid || m.series_instance_uid !== first.series_instance_uid || m.sha256 !== first.sha256,
    );
    if (others.length > 0) faults.push(`${listed([first.path, ...others.map((o) => o.path)])} share SOP Instance UID ${same.key}`);
  }
  const elsewhere = new Map<string, ConflictElsewhere[]>();
  for (const conflict of facts.conflictsElsewhere) {
    let list = elsewhere.get(conflict.sop_instance_uid);
    if (!list) elsewhere.set(conflict.sop_instance_uid, (list = []));
    list.push(conflict);
  }
  for (const [uid, list] of elsewhere) faults.push(`${list[0]!.path} repeats SOP Instance UID ${uid} of upload ${listed(list.map((c) => quoted(c.file)))}`);
  if (faults.length === 0) return { rule: 'no_conflicting_instances', ok: true, message: 'No SOP Instance UID is used for another study, series or other bytes.' };
  const more = faults.length > LISTED ? `; and ${faults.length - LISTED} more` : '';
  return {
    rule: 'no_conflicting_instances',
    ok: false,
    message: `${plural(faults.length, 'SOP Instance UID is', 'SOP Instance UIDs are')} used for another study, series or other bytes (conflicts, not duplicates): ${faults.slice(0, LISTED).join('; ')}${more}.`,
  };
}

function deidentified(rules: TReviewRules, facts: RuleFacts): TRuleOutcome | null {
  if (!rules.deidentified || facts.deidProfile === 'off') return null;
  const report = facts.deidentification;
  if (!report) return { rule: 'deidentified', ok: false, message: 'The project removes patient identity, but no de-identification of this upload was recorded.' };
  const faults: string[] = [];
  if (report.instances.refused > 0) faults.push(`${plural(report.instances.refused, 'instance', 'instances')} could not be de-identified and ${report.instances.refused === 1 ? 'was' : 'were'} not kept`);
  if (report.needs_review_total > 0) {
    faults.push(`${plural(report.needs_review_total, 'instance', 'instances')} may show identity burned into the pixels (${listed(report.needs_review.map((item) => item.path))})`);
  }
  if (faults.length === 0) return { rule: 'deidentified', ok: true, message: `Every instance was de-identified (${report.profile} profile, by the ${report.deidentified_by === 'both' ? 'browser and the server' : report.deidentified_by}).` };
  return { rule: 'deidentified', ok: false, message: `De-identification needs a look: ${faults.join('; ')}.` };
}

/** Every rule the project sets, in a fixed order; a rule the project does not set is not listed. */
export function evaluateRules(rules: TReviewRules, facts: RuleFacts): TRuleOutcome[] {
  return [modalities, patientsPerUpload, requiredSeries, studyDates, onePatientPerStudy, consistentPatients, noConflictingInstances, deidentified]
    .map((rule) => rule(rules, facts))
    .filter((outcome): outcome is TRuleOutcome => outcome !== null);
}
