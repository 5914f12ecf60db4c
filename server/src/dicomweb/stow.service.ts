// STOW-RS (PS3.18 §10.5): each request becomes one delivery (a folder row), filled part by part
// through the deliveries' own entry for a file that arrived whole (DeliveriesService.addWholeFile:
// the byte rules of every upload, uploads/arriving-bytes.ts) and completed into one processing job,
// so that checks, storage, de-identification, processing and audit are those of any folder upload.
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import type { TDeidentificationPolicy } from '@portal/contract';
import { can, type Actor } from '../auth/index.js';
import type { DeliveriesService } from '../deliveries/index.js';
import { AppError, forbidden } from '../errors/app-error.js';
import { readDicomHeader } from '../ingest/index.js';
import type { ProjectsService } from '../projects/index.js';
import { checkContent, type UploadsService } from '../uploads/index.js';
import { FAILURE, type FailedPart, type StoredInstance } from './stow-answer.js';
import type { Part } from './stow-parts.js';
import { storedUids } from './stow-uids.js';

/** What STOW asks of the de-identification feature (its service, wired in services.ts). */
export interface StowPolicies {
  policyOfProject(projectId: number): Promise<TDeidentificationPolicy | undefined>;
  keyOfProject(projectId: number): Promise<Buffer>;
}

export interface StowOptions {
  /** Where a part is written while it arrives: the tus folder, on the storage's filesystem. */
  directory: string;
  maxUploadBytes: number;
}

export interface StowResult {
  stored: StoredInstance[];
  failed: FailedPart[];
}

/** A header larger than this is not read (the ingest limit for a DICOM header). */
const MAX_HEADER_BYTES = 16 * 1024 * 1024;

export class StowService {
  constructor(
    private readonly projects: ProjectsService,
    private readonly deliveries: DeliveriesService,
    private readonly uploads: UploadsService,
    private readonly policies: StowPolicies,
    private readonly options: StowOptions,
  ) {}

  /** Before a byte is read: 404 for a project the actor cannot see, 403 for a role that may not upload to it. */
  async authorize(actor: Actor, projectId: number): Promise<void> {
    const project = await this.projects.require(actor, projectId, 'create');
    if (!can(actor, 'create', project.company_id)) throw forbidden();
  }

  /** Stores the parts of one request in one delivery; `study`: the study every part must belong to. */
  async store(actor: Actor, projectId: number, parts: AsyncIterable<Part>, study: string | undefined, now = new Date()): Promise<StowResult> {
    const policy = await this.policies.policyOfProject(projectId);
    const rule = policy && policy.profile !== 'off' && !policy.options.includes('retainUIDs') ? { policy, key: await this.policies.keyOfProject(projectId) } : null;
    const result: StowResult = { stored: [], failed: [] };
    let deliveryId: number | undefined;
    let n = 0;
    await mkdir(this.options.directory, { recursive: true });
    for await (const part of parts) {
      n += 1;
      const file = path.join(this.options.directory, `stow-${randomUUID()}`);
      try {
        const written = await this.#write(part, file);
        if (written === 'too large') {
          result.failed.push({ reason: FAILURE.outOfResources, words: `Part ${n} is larger than the ${this.options.maxUploadBytes} bytes an upload may have; it was not kept` });
          continue;
        }
        const refusal = contentRefusal(written.head);
        if (refusal) {
          result.failed.push({ reason: FAILURE.cannotRead, words: `Part ${n} was not kept: ${refusal}` });
          continue;
        }
        const header = await readDicomHeader(file, MAX_HEADER_BYTES);
        const fields = header.ok ? header.fields : undefined;
        if (!header.ok || !fields?.sop_instance_uid || !fields.sop_class_uid || !fields.study_instance_uid || !fields.series_instance_uid) {
          result.failed.push({ reason: FAILURE.cannotRead, words: `Part ${n} was not kept: its DICOM header cannot be read or lacks the study, series or instance UID` });
          continue;
        }
        // The UIDs the instance will carry once stored (stow-uids.ts).
        const stored = await storedUids(file, written.size, header.dataSet, fields.transfer_syntax_uid, rule);
        const instance: StoredInstance = {
          sopClassUid: fields.sop_class_uid,
          sopInstanceUid: stored(fields.sop_instance_uid),
          studyUid: stored(fields.study_instance_uid),
          seriesUid: stored(fields.series_instance_uid),
        };
        if (study !== undefined && study !== fields.study_instance_uid && study !== instance.studyUid) {
          result.failed.push({ sopClassUid: instance.sopClassUid, sopInstanceUid: instance.sopInstanceUid, reason: FAILURE.wrongStudy, words: `Part ${n} belongs to another study than the one this request names; it was not kept` });
          continue;
        }
        // Free space and the company's allowance, weighed as for a delivery's file sent whole (tus creation).
        const refused = await this.uploads.admit({ projectId }, written.size, () => Promise.resolve()).then(() => undefined, (err: unknown) => err);
        if (refused !== undefined) {
          result.failed.push({ sopClassUid: instance.sopClassUid, sopInstanceUid: instance.sopInstanceUid, reason: FAILURE.outOfResources, words: `Part ${n} was not kept: ${wordsOf(refused)}` });
          continue;
        }
        deliveryId ??= (await this.deliveries.create(actor, { name: deliveryName(now), studypetitionid: projectId })).id;
        const done = this.deliveries.beginArrival(deliveryId);
        try {
          await this.deliveries.addWholeFile({ deliveryId, relativePath: `${instance.sopInstanceUid}.dcm`, path: file, size: written.size, sha256: written.sha256 });
          result.stored.push(instance);
        } catch (err) {
          result.failed.push({ sopClassUid: instance.sopClassUid, sopInstanceUid: instance.sopInstanceUid, reason: FAILURE.outOfResources, words: `Part ${n} was not kept: ${wordsOf(err)}` });
        } finally {
          done();
        }
      } finally {
        await rm(file, { force: true });
      }
    }
    if (deliveryId !== undefined && result.stored.length > 0) await this.deliveries.complete(actor, deliveryId);
    return result;
  }

  /** The part into `file`, hashed as it passes; its first bytes kept for the content check. */
  async #write(part: Part, file: string): Promise<{ size: number; sha256: string; head: Buffer } | 'too large'> {
    const out = createWriteStream(file, { flags: 'wx', mode: 0o600 });
    const hash = createHash('sha256');
    const head: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    try {
      for await (const chunk of part.body) {
        size += chunk.length;
        if (size > this.options.maxUploadBytes) tooLarge = true;
        if (tooLarge) continue; // read to its end: the next part follows
        if (size - chunk.length < 4096) head.push(Buffer.from(chunk.subarray(0, 4096)));
        hash.update(chunk);
        if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      }
    } finally {
      out.end();
      await finished(out);
    }
    if (tooLarge) return 'too large';
    return { size, sha256: hash.digest('hex'), head: Buffer.concat(head).subarray(0, 4096) };
  }
}

/** Why a part is not a DICOM file, in words; undefined when it is one. */
function contentRefusal(head: Buffer): string | undefined {
  try {
    return checkContent('part.dcm', head) === 'dicom' ? undefined : 'it is not a DICOM file';
  } catch {
    return 'it is not a DICOM file';
  }
}

function wordsOf(err: unknown): string {
  // AppErrors carry words for the sender; anything else is not shown.
  return err instanceof AppError ? err.message : 'the server could not store it; send it again';
}

/** 'DICOMweb 2026-11-28 14:05' (UTC). */
export function deliveryName(now: Date): string {
  return `DICOMweb ${now.toISOString().slice(0, 16).replace('T', ' ')}`;
}
