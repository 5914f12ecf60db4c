// The attributes a search can match and answer (PS3.18 Table 6.7.1-2, -2a, -2b): where each is held
// in the entry index, its VR, and how a value of it is matched.
export type Level = 'study' | 'series' | 'instance';

/** uid: a list of UIDs; text: single value or wildcards; date/time: a value or a range; integer: exact. */
export type Matching = 'uid' | 'text' | 'date' | 'time' | 'integer' | 'modalities' | 'none';

export interface Attribute {
  keyword: string;
  /** Eight hex digits, upper case, as DICOM JSON keys them. */
  tag: string;
  vr: 'AE' | 'CS' | 'DA' | 'IS' | 'LO' | 'PN' | 'SH' | 'TM' | 'UI' | 'UR' | 'US';
  level: Level;
  matching: Matching;
  /** The file_entries column (alias e) it is read from; null: computed by the search. */
  column: string | null;
}

const a = (keyword: string, tag: string, vr: Attribute['vr'], level: Level, matching: Matching, column: string | null): Attribute => ({
  keyword,
  tag,
  vr,
  level,
  matching,
  column,
});

export const ATTRIBUTES: readonly Attribute[] = [
  a('StudyInstanceUID', '0020000D', 'UI', 'study', 'uid', 'study_instance_uid'),
  a('StudyDate', '00080020', 'DA', 'study', 'date', 'study_date'),
  a('StudyTime', '00080030', 'TM', 'study', 'time', 'study_time'),
  a('AccessionNumber', '00080050', 'SH', 'study', 'text', 'accession_number'),
  a('ModalitiesInStudy', '00080061', 'CS', 'study', 'modalities', null),
  a('ReferringPhysicianName', '00080090', 'PN', 'study', 'text', 'referring_physician_name'),
  a('StudyDescription', '00081030', 'LO', 'study', 'text', 'study_description'),
  a('PatientName', '00100010', 'PN', 'study', 'text', 'patient_name'),
  a('PatientID', '00100020', 'LO', 'study', 'text', 'patient_id'),
  a('PatientBirthDate', '00100030', 'DA', 'study', 'date', 'patient_birth_date'),
  a('PatientSex', '00100040', 'CS', 'study', 'text', 'patient_sex'),
  a('StudyID', '00200010', 'SH', 'study', 'text', 'study_id'),
  a('NumberOfStudyRelatedSeries', '00201206', 'IS', 'study', 'none', null),
  a('NumberOfStudyRelatedInstances', '00201208', 'IS', 'study', 'none', null),
  a('Modality', '00080060', 'CS', 'series', 'text', 'modality'),
  a('SeriesDescription', '0008103E', 'LO', 'series', 'text', 'series_description'),
  a('SeriesInstanceUID', '0020000E', 'UI', 'series', 'uid', 'series_instance_uid'),
  a('SeriesNumber', '00200011', 'IS', 'series', 'integer', 'series_number'),
  a('NumberOfSeriesRelatedInstances', '00201209', 'IS', 'series', 'none', null),
  a('SOPClassUID', '00080016', 'UI', 'instance', 'uid', 'sop_class_uid'),
  a('SOPInstanceUID', '00080018', 'UI', 'instance', 'uid', 'sop_instance_uid'),
  a('InstanceNumber', '00200013', 'IS', 'instance', 'integer', 'instance_number'),
  a('NumberOfFrames', '00280008', 'IS', 'instance', 'none', 'number_of_frames'),
  a('Rows', '00280010', 'US', 'instance', 'none', 'rows'),
  a('Columns', '00280011', 'US', 'instance', 'none', 'columns'),
  a('RetrieveURL', '00081190', 'UR', 'study', 'none', null),
];

const BY_NAME = new Map<string, Attribute>(ATTRIBUTES.flatMap((attr) => [[attr.keyword.toLowerCase(), attr] as const, [attr.tag, attr] as const]));

/** The attribute a query key names, by keyword (any case) or by tag ('00100010'); undefined when unknown. */
export function attributeNamed(name: string): Attribute | undefined {
  return /^[0-9a-f]{8}$/i.test(name) ? BY_NAME.get(name.toUpperCase()) : BY_NAME.get(name.toLowerCase());
}

const RANK: Record<Level, number> = { study: 0, series: 1, instance: 2 };

/** Attributes of `level` and of the levels above it (a series answers its study's too). */
export function reachable(attr: Attribute, level: Level): boolean {
  return RANK[attr.level] <= RANK[level];
}

/** What a level can answer: the attributes of it and above, a computed one (a count) only at its own level. */
export function available(attr: Attribute, level: Level): boolean {
  return reachable(attr, level) && (attr.column !== null || attr.level === level || attr.keyword === 'RetrieveURL');
}

/** What each level answers without includefield: its own attributes and the UIDs that place it. */
export function defaults(level: Level): Attribute[] {
  const placing = new Set(['StudyInstanceUID', 'SeriesInstanceUID', 'RetrieveURL']);
  return ATTRIBUTES.filter((attr) => available(attr, level) && (attr.level === level || placing.has(attr.keyword)));
}
