import type { Policy } from '@portal/deid';
import { memberOf, type BundleFile, type PartsMember } from '../api/bundle';
import { packPartsOffPage } from '../api/pack-off-page';
import { preparedUpload } from '../api/prepared-upload';
import { LeftOutFailure, type Transport, type UploadJob } from '../api/tus-upload';
import { madeSize } from './deid-batch';
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
 * Each member de-identified, as tar members of parts: a File per member would cost the page a
 * Blob of its own (3.8 ms each in Chromium here, the main thread's largest cost for 2,000 files).
 */
async function deidentifyMembers(members: readonly BundleFile[], deid: Deidentifier): Promise<PartsMember[]> {
  const outcomes = await deid.runMany(members.map((m) => m.file));
  const leftOut = new Map<string, string>();
  const made: PartsMember[] = [];
  outcomes.forEach((outcome, i) => {
    const entry = members[i] as BundleFile;
    if ('refused' in outcome) leftOut.set(entry.path, outcome.refused);
    else made.push({ member: { ...memberOf(entry), size: madeSize(outcome.made) }, parts: [outcome.made] });
  });
  if (leftOut.size > 0) throw new LeftOutFailure(leftOut);
  return made;
}

/** The job with its bytes de-identified: a file alone, or the bundle's tar packed from de-identified members. */
async function prepare(job: UploadJob, deid: Deidentifier, made: string): Promise<UploadJob> {
  if (job.bundle) {
    const members = await deidentifyMembers(job.bundle.members, deid);
    // The original members name the upload (its resume key and the delivery's memory); the tar carries the made ones.
    return { ...job, file: await packPartsOffPage(members), variant: { made, original: job.file } };
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
