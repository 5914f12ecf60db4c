// The PS3.18 store answer (§10.5.3, Table 10.5.3-1) in DICOM JSON (PS3.18 F.2): one
// ReferencedSOPSequence item per stored instance, one FailedSOPSequence item per refused part.
import type { DicomJsonElement, DicomJsonObject } from './dicom-json.js';

export interface StoredInstance {
  sopClassUid: string;
  sopInstanceUid: string;
  studyUid: string;
  seriesUid: string;
}

export interface FailedPart {
  sopClassUid?: string | undefined;
  sopInstanceUid?: string | undefined;
  /** PS3.18 Table 10.5.3-2 / PS3.4 Annex GG failure reason. */
  reason: number;
  /** Why, in words (not part of PS3.18's answer: carried in a text attribute a client may show). */
  words: string;
}

/** Failure reasons (PS3.4 Table GG.4-1 and PS3.18 §10.5.3). */
export const FAILURE = {
  /** Processing failure: the part is not DICOM or cannot be read. */
  cannotRead: 0xc000,
  /** Out of resources: over a quota or the storage is full. */
  outOfResources: 0xa700,
  /** The instance belongs to another study than the one the request named. */
  wrongStudy: 0xa900,
} as const;

const text = (vr: string, value: string | undefined): DicomJsonElement => (value ? { vr, Value: [value] } : { vr });

export function storeAnswer(input: { studyUrl: string | undefined; stored: readonly StoredInstance[]; failed: readonly FailedPart[]; instanceUrl: (i: StoredInstance) => string }): DicomJsonObject {
  const answer: DicomJsonObject = {};
  answer['00081190'] = text('UR', input.studyUrl);
  if (input.failed.length > 0) {
    answer['00081198'] = {
      vr: 'SQ',
      Value: input.failed.map((f) => ({
        '00081150': text('UI', f.sopClassUid),
        '00081155': text('UI', f.sopInstanceUid),
        '00081197': { vr: 'US', Value: [f.reason] },
        // Retrieve AE Title would not fit; Text Value (0040,A160) carries the reason in words.
        '0040A160': { vr: 'UT', Value: [f.words] },
      })),
    };
  }
  if (input.stored.length > 0) {
    answer['00081199'] = {
      vr: 'SQ',
      Value: input.stored.map((s) => ({
        '00081150': text('UI', s.sopClassUid),
        '00081155': text('UI', s.sopInstanceUid),
        '00081190': text('UR', input.instanceUrl(s)),
      })),
    };
  }
  return answer;
}

/** 200 all stored, 202 some refused, 409 none stored (PS3.18 §10.5.3). */
export function storeStatus(stored: number, failed: number): 200 | 202 | 409 {
  if (failed === 0 && stored > 0) return 200;
  return stored > 0 ? 202 : 409;
}
