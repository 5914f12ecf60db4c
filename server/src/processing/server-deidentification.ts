// The server's check of de-identification (issue 33, item 4): every DICOM instance of a project
// whose profile is not 'off' goes through the same engine as in the browser. One already
// de-identified with the project's policy and key is kept byte for byte; one that still carries
// identity is de-identified here (same pseudonyms and UIDs as the browser would give); one the engine
// cannot read is not kept. What was found is recorded on the file row (deid_outcome) for its report.
import { createHash } from 'node:crypto';
import { deidentify, DeidentificationError, recogniseOwnOutput, type Counts, type DeidReport, type Option } from '@portal/deid';
import type { TDeidentificationPolicy } from '@portal/contract';

/** What processing asks of the de-identification feature (its service, wired in services.ts). */
export interface ProjectPolicies {
  policyOfProject(projectId: number): Promise<TDeidentificationPolicy | undefined>;
  keyOfProject(projectId: number): Promise<Buffer>;
}

/** A project's policy while one of its files is processed; null when its profile is 'off'. */
export interface ActivePolicy {
  policy: { profile: 'basic'; options: Option[] };
  edition: string;
  key: Uint8Array;
}

export async function activePolicy(policies: ProjectPolicies | undefined, projectId: number): Promise<ActivePolicy | null> {
  if (!policies) return null;
  const policy = await policies.policyOfProject(projectId);
  if (!policy || policy.profile === 'off') return null;
  return { policy: { profile: 'basic', options: policy.options }, edition: policy.edition, key: await policies.keyOfProject(projectId) };
}

export type CheckedInstance =
  | { outcome: 'kept'; report: DeidReport }
  | { outcome: 'rewritten'; bytes: Uint8Array; sha256: string; report: DeidReport }
  | { outcome: 'refused'; reason: string };

/** Checks one instance; a rewritten one comes with its new bytes and their SHA-256. */
export function checkInstance(bytes: Uint8Array, active: ActivePolicy): CheckedInstance {
  try {
    // What the sender's browser de-identified is recognised by its keyed marks without a full parse.
    const kept = recogniseOwnOutput(bytes, active.policy, active.key);
    if (kept) return { outcome: 'kept', report: kept };
    const result = deidentify(bytes, active.policy, active.key);
    if (result.report.alreadyDeidentified) return { outcome: 'kept', report: result.report };
    return { outcome: 'rewritten', bytes: result.bytes, sha256: createHash('sha256').update(result.bytes).digest('hex'), report: result.report };
  } catch (error) {
    if (error instanceof DeidentificationError) return { outcome: 'refused', reason: refusalText(error.message) };
    throw error;
  }
}

/** The engine's words are written for the sender; the server adds what it did with the file. */
export function refusalText(engineMessage: string): string {
  return `${engineMessage} The server does not keep a file whose patient identity it cannot remove: it was deleted.`;
}

/** Said of a non-DICOM file of a delivery in such a project: as the browser leaves it out, the server does not keep it. */
export const NOT_DICOM_LEFT_OUT =
  'Left out: this project removes patient identity, and only DICOM files can be de-identified, so other files are not kept.';

/** The stored outcome (JSON on the file row): what a report shows of one upload or delivery. */
export interface DeidOutcome {
  profile: 'basic';
  options: Option[];
  edition: string;
  /** Who removed the identity of the instances kept: the sender's browser (already de-identified on arrival), the server, or both. */
  deidentified_by: 'browser' | 'server' | 'both' | 'none';
  instances: { browser: number; server: number; refused: number };
  counts: { removed: number; replaced: number; shifted: number; cleaned: number; private_removed: number; uids_replaced: number };
  /** Instances that may show identity burned into their pixels: for a person to look at. */
  needs_review: { path: string; sop_instance_uid: string; reason: string }[];
  needs_review_total: number;
}

/** Beyond this, flagged instances are counted but not listed (a row's JSON stays small). */
const REVIEW_LISTED = 500;

export class OutcomeBuilder {
  readonly #outcome: DeidOutcome;

  constructor(active: ActivePolicy) {
    this.#outcome = {
      profile: 'basic',
      options: active.policy.options,
      edition: active.edition,
      deidentified_by: 'none',
      instances: { browser: 0, server: 0, refused: 0 },
      counts: { removed: 0, replaced: 0, shifted: 0, cleaned: 0, private_removed: 0, uids_replaced: 0 },
      needs_review: [],
      needs_review_total: 0,
    };
  }

  add(path: string, checked: CheckedInstance): void {
    const o = this.#outcome;
    if (checked.outcome === 'refused') {
      o.instances.refused += 1;
      return;
    }
    o.instances[checked.outcome === 'kept' ? 'browser' : 'server'] += 1;
    addCounts(o.counts, checked.report.counts);
    if (checked.report.needsReview) {
      o.needs_review_total += 1;
      if (o.needs_review.length < REVIEW_LISTED) {
        o.needs_review.push({ path, sop_instance_uid: checked.report.sopInstanceUid, reason: checked.report.reviewReason ?? '' });
      }
    }
  }

  json(): string {
    const o = this.#outcome;
    const { browser, server } = o.instances;
    o.deidentified_by = browser > 0 && server > 0 ? 'both' : browser > 0 ? 'browser' : server > 0 ? 'server' : 'none';
    return JSON.stringify(o);
  }
}

function addCounts(into: DeidOutcome['counts'], counts: Counts): void {
  into.removed += counts.removed;
  into.replaced += counts.replaced;
  into.shifted += counts.shifted;
  into.cleaned += counts.cleaned;
  into.private_removed += counts.privateRemoved;
  into.uids_replaced += counts.uidsReplaced;
}
