// How bytes become a file of a project (DESIGN §4, §10): the checks before a byte is stored, the
// bytes made durable, and the commit that shows the file row with its processing job.
import type { Readable } from 'node:stream';
import type { TProjectFile } from '@portal/contract';
import { can, type Actor } from '../auth/index.js';
import type { AuditEvent, AuditTrail } from '../audit/index.js';
import type { ProjectFileRow } from '../db/schema.js';
import { forbidden, unprocessable } from '../errors/app-error.js';
import type { Announcer } from '../events/events.js';
import { describedForJob, notReplaceable, presentFile, PROCESS_UPLOAD, type CommitOptions, type FileRow, type FilesRepository, type NewFile, type TDescribedFile } from '../files/index.js';
import { describeBytesOffThread, resolveLimits } from '../ingest/index.js';
import type { LaneReservation } from '../jobs/index.js';
import type { ProjectsService } from '../projects/index.js';
import { explainStorageFull, type QuotaTarget, type UploadAllowance } from '../quota/index.js';
import { newUploadKey } from '../storage/object-key.js';
import type { Storage } from '../storage/storage.js';
import type { PendingUploadsRepository } from './pending-uploads.repository.js';
import type { UploadEvents } from './upload-events.js';
import { storeArriving, storeInMemory, type ArrivingBytes, type ByteRules } from './arriving-bytes.js';
import { UPLOAD_HEAD_BYTES, type StoredUpload } from './upload-pipeline.js';
import { checkContent, checkUploadName } from './upload-rules.js';
import { WholeFileMemory } from './whole-file-memory.js';
import { readWholeSource } from './whole-source.js';

export interface UploadsOptions {
  maxUploadBytes: number;
  uploadLeaseMs: number;
  /** The processing job's header limit (PROCESSING limits), for files described on arrival. */
  maxDicomHeaderBytes?: number;
}

/**
 * A multipart upload whose whole request is at most this long is read into memory, hashed, checked
 * and described there and written in one call (docs/performance.md, "Single uploads read whole"): a
 * CD export sent file by file is thousands of these, and the stream machinery, the job's two opens
 * of the stored file and their round trips to the thread pool cost more than the bytes.
 */
export const WHOLE_UPLOAD_MAX_BYTES = 1024 * 1024;

/** An upload whose bytes are durable in storage but which no file row shows yet. */
export interface ReceivedUpload {
  key: string;
  fileName: string;
  kind: 'dicom' | 'archive';
  size: number;
  sha256: string;
  /** How it arrived, for the audit trail. */
  via: 'multipart' | 'tus';
  /** A DICOM file read whole on arrival: what it is, for its job (which then does not read it again). */
  described?: TDescribedFile;
  /** Sent before its project: the company whose allowance it was weighed against (the caller's). */
  weighedFor?: number;
}

/** What of the job runner in this process uploads use to start their jobs. */
export interface UploadJobRunner {
  reserve(kind: string): LaneReservation | undefined;
  nudge(kind: string): void;
}

/** How a file arrived: the multipart call, one tus upload, or a completed delivery (its files came by tus). */
export type UploadPath = 'multipart' | 'tus' | 'delivery';

/** What #storeWhole answers: no head (checked already), and the description when it is DICOM. */
interface StoredWhole {
  key: string;
  size: number;
  sha256: string;
  described?: TDescribedFile;
}

function uploadEvent(row: ProjectFileRow, via: UploadPath): AuditEvent {
  return {
    action: 'upload.completed',
    companyId: row.company_id,
    object: { type: 'file', id: row.id },
    details: { name: row.file, size: Number(row.filesize), sha256: row.sha256, project_id: row.project_id, via },
  };
}

/** The rejected file `row` replaces became 'replaced' (issue 35): recorded on the old file. */
export function replacedEvent(row: Pick<ProjectFileRow, 'id' | 'company_id' | 'project_id' | 'replaces' | 'file'>): AuditEvent {
  return {
    action: 'file.replaced',
    companyId: row.company_id,
    object: { type: 'file', id: row.replaces ?? 0 },
    details: { replaced_by: row.id, name: row.file, project_id: row.project_id },
  };
}

export class UploadsService {
  /** Bodies of uploads read whole, held at once by all requests together (past it they stream). */
  readonly #wholeMemory = new WholeFileMemory();
  readonly #maxDicomHeaderBytes: number;
  #runner: UploadJobRunner | undefined;

  constructor(
    private readonly files: FilesRepository,
    private readonly pending: PendingUploadsRepository,
    private readonly projects: ProjectsService,
    private readonly storage: Storage,
    private readonly options: UploadsOptions,
    private readonly audit: AuditTrail,
    private readonly events: Announcer<UploadEvents>,
    private readonly allowance?: UploadAllowance,
  ) {
    this.#maxDicomHeaderBytes = options.maxDicomHeaderBytes ?? resolveLimits({}).maxDicomHeaderBytes;
  }

  /**
   * The job runner in this process (services.ts, wakeOnUpload): an upload's job is queued already
   * claimed when a lane is idle, and started there; otherwise a lane is nudged to claim it.
   */
  runJobsOn(runner: UploadJobRunner): void {
    this.#runner = runner;
  }

  /**
   * Streams one upload into storage. The name, the actor's role and company and the project are
   * checked before any byte is read, so a refused upload stores nothing (issue 12, item 8);
   * `commit` checks the project again, as it may have been deleted meanwhile. Without `projectId`
   * (a form whose file comes before its project field) only the name and the role are checked
   * first; the project is then checked by `commit` alone, which removes the bytes if refused.
   */
  receive(
    actor: Actor,
    input: { fileName: string | undefined; source: Readable; projectId: number | undefined; signal?: AbortSignal; expectedBytes?: number | undefined },
  ): Promise<ReceivedUpload> {
    const { expectedBytes } = input;
    // Without a length the upload announces nothing to hold: it is admitted while the allowance has room.
    const reserve = { bytes: expectedBytes ?? 0 };
    const whole = expectedBytes !== undefined && expectedBytes <= WHOLE_UPLOAD_MAX_BYTES && this.#wholeMemory.take(expectedBytes);
    const bytes: ArrivingBytes = {
      from: 'stream',
      source: input.source,
      whole,
      ...(input.signal ? { signal: input.signal } : {}),
      ...(expectedBytes !== undefined ? { expectedBytes } : {}),
    };
    const received = this.admitAndStore(actor, { fileName: input.fileName, projectId: input.projectId, bytes, via: 'multipart', reserve });
    return whole ? received.finally(() => this.#wholeMemory.giveBack(expectedBytes)) : received;
  }

  /**
   * The same as `receive` for bytes that already arrived in a local file (a finished resumable
   * upload): the same checks, then the file is moved into storage. On success `path` is gone.
   * `sha256`, when the caller computed it over the bytes as they arrived, spares reading them again.
   */
  receiveLocalFile(
    actor: Actor,
    input: { fileName: string; path: string; projectId: number; sha256?: string },
  ): Promise<ReceivedUpload> {
    return this.admitAndStore(actor, { fileName: input.fileName, projectId: input.projectId, bytes: { from: 'file', path: input.path, sha256: input.sha256 }, via: 'tus' });
  }

  /**
   * Weighs an upload of `bytes` against the server's free space and the target's company allowance
   * (507, 413), then runs `hold`, which records it with its size: the one admission every path
   * makes before it stores a byte (this entry for multipart, tus creation for tus and deliveries).
   */
  admit<T>(target: QuotaTarget, bytes: number, hold: (companyId: number | null) => Promise<T>): Promise<T> {
    return this.allowance ? this.allowance.admit(target, bytes, hold) : hold(null);
  }

  /**
   * The one entry every upload's bytes pass, whichever way they arrived: the name, the actor's role
   * and the project (before a byte is read, so a refused upload stores nothing, issue 12 item 8),
   * the admission with its pending record, then the byte rules (storeArriving: size, content,
   * SHA-256, durable), and on any refusal nothing kept. `commit` then shows the row with its audit
   * and job. Without `projectId` (a form whose file comes before its project field) only the name
   * and the role are checked first; the project is then checked by `commit` alone, which removes
   * the bytes if refused. `reserve`: a new upload's announced size, weighed against the storage
   * limits; none for bytes admitted already (a finished tus upload was weighed at its creation).
   */
  async admitAndStore(
    actor: Actor,
    input: { fileName: string | undefined; projectId: number | undefined; bytes: ArrivingBytes; via: ReceivedUpload['via']; reserve?: { bytes: number } },
  ): Promise<ReceivedUpload> {
    const { projectId, reserve, via } = input;
    const fileName = checkUploadName(input.fileName);
    const project = projectId === undefined ? undefined : await this.projects.require(actor, projectId, 'create');
    // A role that may upload to no project at all (SysUser) is known from the token alone.
    if (!project && !can(actor, 'create', actor.companyId)) throw forbidden();
    const key = newUploadKey();
    const { uploadLeaseMs } = this.options;
    const begin = (companyId: number | null) => this.pending.begin(key, uploadLeaseMs, companyId === null || !reserve ? undefined : { companyId, bytes: reserve.bytes });
    // The company the project check found (its allowance is then read by the company's key). A file
    // sent before its project is weighed against the caller's own company, the one a company user can
    // add to; a role that may write elsewhere is weighed again once the project is known (commit).
    const target = { companyId: project?.company_id ?? actor.companyId };
    await (reserve ? this.admit(target, reserve.bytes, begin) : begin(null));
    const renewal = setInterval(() => void this.pending.renew(key, uploadLeaseMs).catch(() => undefined), uploadLeaseMs / 3);
    renewal.unref();
    let kind: 'dicom' | 'archive' = 'archive';
    try {
      const stored = await this.#store(input.bytes, key, (head) => (kind = checkContent(fileName, head)));
      const described = 'described' in stored ? stored.described : undefined;
      return {
        key, fileName, kind, size: stored.size, sha256: stored.sha256, via,
        ...(described ? { described } : {}),
        ...(projectId === undefined ? { weighedFor: actor.companyId } : {}),
      };
    } catch (err) {
      await this.pending.end(key);
      throw explainStorageFull(err);
    } finally {
      clearInterval(renewal);
    }
  }

  #store(bytes: ArrivingBytes, key: string, checkHead: (head: Buffer) => 'dicom' | 'archive'): Promise<StoredUpload | StoredWhole> {
    const rules = { storage: this.storage, key, maxBytes: this.options.maxUploadBytes, checkHead };
    if (bytes.from === 'stream' && bytes.whole) return this.#storeWhole(bytes.source, rules, checkHead, bytes.signal);
    return storeArriving(bytes, rules);
  }

  /**
   * A small body read whole. A separate path for DICOM only, because single uploads missed their
   * target (faster than Orthanc, docs/performance.md "Single uploads read whole") until its header
   * was described here, on another thread, while its bytes are stored; anything else takes the
   * shared byte rules (storeInMemory).
   */
  async #storeWhole(source: Readable, rules: ByteRules, checkHead: (head: Buffer) => 'dicom' | 'archive', signal: AbortSignal | undefined): Promise<StoredUpload | StoredWhole> {
    const bytes = await readWholeSource(source, rules.maxBytes, signal);
    const kind = checkHead(bytes.subarray(0, UPLOAD_HEAD_BYTES));
    if (kind !== 'dicom') return storeInMemory(bytes, { ...rules, checkHead: undefined }, signal);
    // The checks that may refuse it are done, and what it is decides nothing about keeping it.
    const [stored, facts] = await Promise.allSettled([
      this.storage.putBytes(rules.key, bytes, signal ? { signal } : {}),
      describeBytesOffThread(bytes, this.#maxDicomHeaderBytes),
    ]);
    if (stored.status === 'rejected') throw stored.reason;
    if (facts.status === 'rejected') {
      // Not known what it is: not kept, as when describing it failed before it was stored.
      await this.storage.delete(rules.key);
      throw facts.reason;
    }
    const described = describedForJob(facts.value.described);
    return { key: rules.key, size: stored.value.size, sha256: facts.value.sha256, ...(described ? { described } : {}) };
  }

  /**
   * Before bytes are stored: `replaces` (issue 35) must name a rejected file of the project (422
   * otherwise). Checked again, and applied, in the transaction that commits the upload.
   */
  async checkReplaces(actor: Actor, projectId: number, replaces: number): Promise<void> {
    const project = await this.projects.require(actor, projectId, 'create');
    if (!(await this.files.findReplaceable(project.id, replaces))) throw unprocessable(notReplaceable(replaces));
  }

  /** Makes a received upload visible as a file of the project, or removes its bytes. `replaces`: the rejected file it answers. */
  async commit(actor: Actor, upload: ReceivedUpload, projectId: number, replaces?: number | null): Promise<TProjectFile> {
    try {
      const project = await this.projects.require(actor, projectId, 'create');
      if (upload.weighedFor !== undefined && upload.weighedFor !== project.company_id) await this.allowance?.admit({ companyId: project.company_id }, upload.size, () => Promise.resolve());
      const file: NewFile = {
        project_id: project.id,
        company_id: project.company_id,
        file: upload.fileName,
        filesize: upload.size,
        sha256: upload.sha256,
        storage_key: upload.key,
        kind: upload.kind,
        created_by: actor.userId,
        replaces: replaces ?? null,
      };
      const row = await this.#commitStartingJob(file, {
        // In the file row's transaction: one write fewer per upload, and no upload without its record.
        andThen: async (trx, committed) => {
          await this.audit.recordIn(trx, uploadEvent(committed, upload.via));
          if (committed.replaces !== null) await this.audit.recordIn(trx, replacedEvent(committed));
        },
        // The header read on arrival holds the patient's identity: in a project that removes it, the
        // job's payload (a database row) must not carry it; the job reads the file it de-identified.
        described: project.deid_profile === 'off' ? upload.described : undefined,
      });
      await this.events.emit('file.uploaded', row, upload.via);
      return presentFile(row);
    } catch (err) {
      await this.discard(upload);
      throw err;
    }
  }

  /** Commits the row with its job, which an idle lane of this process then runs at once (or is nudged to claim). */
  async #commitStartingJob(file: NewFile, opts: Omit<CommitOptions, 'claimedBy'>): Promise<FileRow> {
    const lane = this.#runner?.reserve(PROCESS_UPLOAD.name);
    let committed: Awaited<ReturnType<FilesRepository['commitUpload']>>;
    try {
      committed = await this.files.commitUpload(file, { ...opts, ...(lane ? { claimedBy: { workerId: lane.workerId, leaseMs: lane.leaseMs } } : {}) });
    } catch (err) {
      lane?.release();
      throw err;
    }
    if (lane && committed.job) lane.start(committed.job);
    else {
      lane?.release();
      this.#runner?.nudge(PROCESS_UPLOAD.name);
    }
    return committed.row;
  }

  async discard(upload: ReceivedUpload): Promise<void> {
    await this.storage.delete(upload.key);
    await this.pending.end(upload.key);
  }

  /** A completed delivery that replaced a rejected file (issue 35): recorded on the old file. */
  async recordReplaced(row: ProjectFileRow): Promise<void> {
    if (row.replaces !== null) await this.audit.record(replacedEvent(row));
  }

  /** An upload that became a file of its project (multipart, tus, or a completed delivery). */
  async recordUpload(row: ProjectFileRow, via: UploadPath): Promise<void> {
    await this.audit.record(uploadEvent(row, via));
  }
}
