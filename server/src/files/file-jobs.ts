// The jobs about file rows, as definitions only: their names, payload schemas, and the subjects
// deletion cancels them by. Whoever queues or cancels one imports this; the code that runs them is
// in processing/, registered in services.ts (documenso's jobs/definitions apart from their handlers).
import { ZDicomFields, ZEntryKind } from '@portal/contract';
import { z } from 'zod';
import type { AuditActor } from '../audit/index.js';
import type { StoredFileKind } from '../ingest/index.js';
import { jobType } from '../jobs/index.js';

/** What deletion cancels a file's processing by. */
export function uploadSubject(fileId: number): string {
  return `files/${fileId}`;
}

/**
 * What a job about one file row carries (an upload's or a delivery's). The company is carried for
 * fair claiming only: the job reads everything else from the file's row.
 */
const ZFileJobPayload = z.object({ fileId: z.number().int().positive(), companyId: z.number().int().positive() });
export type TFileJobPayload = z.infer<typeof ZFileJobPayload>;

/**
 * A single DICOM file read whole on arrival (a small multipart upload) was described then, from
 * memory, by the rules the job applies (ingest/stored-file.ts): the job takes that description and
 * does not open the stored file at all.
 */
const ZDescribedFile = z.object({ kind: ZEntryKind, reason: z.string().nullable(), dicom: ZDicomFields.nullable() });
const ZProcessUploadPayload = ZFileJobPayload.extend({ described: ZDescribedFile.optional() });
export type TProcessUploadPayload = z.infer<typeof ZProcessUploadPayload>;
export type TDescribedFile = z.infer<typeof ZDescribedFile>;

/**
 * A job kind about one file row: cancelled by the file's subject, and claimed in turns by company
 * (fair_key), so one company's work never keeps another's waiting.
 */
function fileJobType(name: string) {
  return jobType(name, ZFileJobPayload, (p) => uploadSubject(p.fileId), (p) => `companies/${p.companyId}`);
}

/** Queued with every committed upload, in the same transaction (FilesRepository.commitUpload). */
export const PROCESS_UPLOAD = jobType('process-upload', ZProcessUploadPayload, (p) => uploadSubject(p.fileId), (p) => `companies/${p.companyId}`);

export type TProcessDeliveryPayload = TFileJobPayload;

/** Queued when a delivery is completed, in the same transaction (DeliveriesRepository.complete); deleting its row cancels it. */
export const PROCESS_DELIVERY = fileJobType('process-delivery');

/** What the job carries of a file described on arrival; undefined for an archive (walked by the job). */
export function describedForJob(described: StoredFileKind | undefined): TDescribedFile | undefined {
  if (described === undefined || described.archive) return undefined;
  return { kind: described.kind, reason: described.reason, dicom: described.dicom };
}

/** One run purges everything due when it runs, so it carries nothing. */
const ZPurgePayload = z.object({}).strict();
export type TPurgePayload = z.infer<typeof ZPurgePayload>;

/**
 * Gives back the bytes of files and deliveries deleted longer ago than DELETED_RETENTION_DAYS
 * (purge.service.ts). Not cancelled by any deletion; every run in the same fair group (there is
 * rarely more than one).
 */
export const PURGE_DELETED = jobType('purge-deleted', ZPurgePayload, () => 'purge-deleted');

/** Who the audit trail names for a purge the queue ran. */
export const PURGE_ACTOR: AuditActor = { id: null, name: 'retention', companyId: null };
