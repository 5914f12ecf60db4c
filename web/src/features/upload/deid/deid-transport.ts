import type { Policy } from '@portal/deid';
import { packPacked, type BundleFile } from '../api/bundle';
import { preparedUpload } from '../api/prepared-upload';
import { LeftOutFailure, type BundleMaker, type Transport, type UploadJob } from '../api/tus-upload';
import type { Deidentifier } from './deid-pool';

/**
 * Names a policy in resume keys: another policy or edition makes other bytes. The edition is the
 * server's (the page and the engine come from the same build); the engine itself is loaded only
 * in the workers, so the dialog does not carry it.
 */
export function policyTag(policy: Policy, edition: string): string {
  return `deid:${policy.profile}:${policy.options.join('+')}:${edition}`;
}

/** The made bytes as a File like the original (name, time). */
function madeFile(made: Blob | Uint8Array<ArrayBuffer>, like: File): File {
  return new File([made], like.name, { lastModified: like.lastModified });
}

/** Member paths of a bundle; a file alone is named by its path inside its folder, or its name. */
function nameOf(job: UploadJob): string {
  return job.delivery?.relativePath ?? job.path;
}

/**
 * The bundle's tar, its members de-identified and packed by the workers (a Blob per batch): the
 * page never holds a member's bytes, it joins a few Blobs.
 */
async function deidentifiedBundle(members: readonly BundleFile[], deid: Deidentifier): Promise<File> {
  const batches = await deid.packMembers(members);
  const leftOut = new Map(batches.flatMap((b) => b.refused.map(({ path, reason }) => [path, reason] as const)));
  if (leftOut.size > 0) throw new LeftOutFailure(leftOut);
  return packPacked(batches.map((b) => b.tar));
}

/**
 * A bundle made de-identified from its picked files, for the queue to send instead of their tar:
 * packing the picked files (a Blob of ~800 parts per bundle, off the page) would be thrown away,
 * and the de-identification would wait for it.
 */
export function deidentifiedBundleMaker(deid: Deidentifier, policy: Policy, edition: string): BundleMaker {
  const made = policyTag(policy, edition);
  return async (members) => ({ file: await deidentifiedBundle(members, deid), variant: { made } });
}

/** The job with its bytes de-identified: a file alone, or the bundle's tar packed from de-identified members. */
async function prepare(job: UploadJob, deid: Deidentifier, made: string): Promise<UploadJob> {
  if (job.bundle) {
    // Made by deidentifiedBundleMaker for this policy: sent as it is.
    if (job.variant?.made === made) return job;
    // The original members name the upload (its resume key and the delivery's memory); the tar carries the made ones.
    return { ...job, file: await deidentifiedBundle(job.bundle.members, deid), variant: { made } };
  }
  const outcome = await deid.run(job.file);
  if ('refused' in outcome) throw new LeftOutFailure(new Map([[nameOf(job), outcome.refused]]));
  return { ...job, file: madeFile(outcome.made, job.file), variant: { made, original: job.file } };
}

/**
 * Sends every file de-identified: each just before its upload starts, so a folder of gigabytes is
 * never held (the queue's few sends at a time bound it). The engine is deterministic, so a resumed
 * upload sends the same bytes again. Progress is reported in the picked files' bytes, which the
 * dialog shows.
 */
export function deidentifyingTransport(inner: Transport, deid: Deidentifier, policy: Policy, edition: string): Transport {
  const made = policyTag(policy, edition);
  return (job, callbacks) =>
    preparedUpload(prepare(job, deid, made), (prepared) => {
      const scale = prepared.file.size > 0 ? job.file.size / prepared.file.size : 1;
      return inner(prepared, {
        onResume: callbacks.onResume,
        onProgress: (sent) => callbacks.onProgress(sent >= prepared.file.size ? job.file.size : Math.floor(sent * scale)),
      });
    });
}
