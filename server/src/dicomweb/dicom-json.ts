// Search answers as DICOM JSON (PS3.18 F.2): each attribute keyed by its tag, with its VR and its
// values; an attribute the instances leave empty is present without a Value, as F.2.5 has it.
import type { Attribute, Level } from './qido-attributes.js';
import type { QidoRow } from './qido.repository.js';

export interface DicomJsonElement {
  vr: string;
  Value?: unknown[];
  /** Where a binary value is retrieved (WADO-RS metadata, PS3.18 F.2.6). */
  BulkDataURI?: string;
}
export type DicomJsonObject = Record<string, DicomJsonElement>;

/** A PN value's component groups (PS3.18 F.2.2): 'Doe^John=ドウ^ジョン' */
export function personName(value: string): Record<string, string> {
  const [alphabetic, ideographic, phonetic] = value.split('=');
  const name: Record<string, string> = {};
  if (alphabetic) name.Alphabetic = alphabetic;
  if (ideographic) name.Ideographic = ideographic;
  if (phonetic) name.Phonetic = phonetic;
  return name;
}

function values(attr: Attribute, raw: unknown): unknown[] {
  if (raw === null || raw === undefined) return [];
  if (Array.isArray(raw)) return raw as unknown[];
  // PostgreSQL answers counts as text: numbers here.
  if (attr.vr === 'IS' || attr.vr === 'US') return [Number(raw)];
  const text = typeof raw === 'string' ? raw : typeof raw === 'number' || typeof raw === 'bigint' ? raw.toString() : '';
  const parts = attr.vr === 'UR' ? [text] : text.split('\\').map((v) => (attr.vr === 'PN' ? v : v.trim()));
  if (attr.vr === 'PN') return parts.map(personName);
  return parts.filter((v) => v !== '');
}

/** Where WADO-RS retrieves a study, or one of its series, or one instance of that series (base: …/dicomweb). */
export function retrieveUrl(base: string, uids: { study: string; series?: string; instance?: string }): string {
  let path = `${base}/studies/${uids.study}`;
  if (uids.series !== undefined) path += `/series/${uids.series}`;
  if (uids.series !== undefined && uids.instance !== undefined) path += `/instances/${uids.instance}`;
  return path;
}

/** Where WADO-RS retrieves the study, series or instance of a row. */
export function retrievePath(base: string, level: Level, row: QidoRow): string {
  return retrieveUrl(base, {
    study: String(row.StudyInstanceUID),
    ...(level !== 'study' && { series: String(row.SeriesInstanceUID) }),
    ...(level === 'instance' && { instance: String(row.SOPInstanceUID) }),
  });
}

export function dicomJson(level: Level, fields: readonly Attribute[], row: QidoRow, base: string): DicomJsonObject {
  const object: DicomJsonObject = {};
  for (const attr of [...fields].sort((x, y) => x.tag.localeCompare(y.tag))) {
    const raw = attr.keyword === 'RetrieveURL' ? retrievePath(base, level, row) : row[attr.keyword];
    const found = values(attr, raw);
    object[attr.tag] = found.length > 0 ? { vr: attr.vr, Value: found } : { vr: attr.vr };
  }
  return object;
}

/**
 * The absolute …/dicomweb URL of a project as the request reached it: every URL the DICOMweb
 * answers give (QIDO's and STOW's RetrieveURL, WADO's BulkDataURI) starts with it, in one form.
 */
export function dicomwebBase(request: { protocol: string; host: string }, apiPrefix: string, projectId: number): string {
  return `${request.protocol}://${request.host}${apiPrefix}/study-petitions/${projectId}/dicomweb`;
}
