// The project's de-identification (issue 33) applied before any byte leaves this computer, with
// the engine the web app runs (`@portal/deid`): same bytes, policy and key give the same output,
// so a resumed upload sends exactly what its first run began to send.
import { open, readFile } from 'node:fs/promises';
import { DeidentificationError, deidentifyParts, NeedsWholeFile, type Option, type Policy } from '@portal/deid';
import { BUNDLE_MAX_MEMBER_BYTES } from '@portal/contract/delivery-bundle';
import type { Part } from './byte-source.js';
import type { PortalApi } from './portal-api.js';
import { CliError, EXIT } from './exit-codes.js';

export const UNREADABLE_DICOM = 'This file could not be read as DICOM, so its patient identity cannot be removed; it is left out.';

/** A CT or MR header fits with room to spare; a longer one is read whole. */
const FIRST_READ_BYTES = 64 * 1024;

export type ProjectDeidentification =
  | { where: 'nowhere' }
  /** The project removes identity but this token's owner holds no key (SysUser, SysAdmin): the portal does it on arrival. */
  | { where: 'portal'; options: readonly Option[] }
  | { where: 'here'; policy: Policy; key: Uint8Array; tag: string };

function fromBase64Url(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'base64url'));
}

/** The policy, and the key when it asks for one; nothing is sent until both are known. */
export async function projectDeidentification(api: PortalApi, projectId: number): Promise<ProjectDeidentification> {
  const policy = await api.one<{ profile: 'off' | 'basic'; options: Option[]; edition: string }>(
    'GET',
    `/study-petitions/${projectId}/deidentification`,
    'Reading the project’s de-identification policy',
  );
  if (policy.profile === 'off') return { where: 'nowhere' };
  try {
    const { key } = await api.one<{ key: string }>('GET', `/study-petitions/${projectId}/deidentification/key`, 'Reading the project’s de-identification key');
    // Names the made bytes in the state file: another policy or edition makes other bytes.
    const tag = `deid:basic:${policy.options.join('+')}:${policy.edition}`;
    return { where: 'here', policy: { profile: 'basic', options: policy.options }, key: fromBase64Url(key), tag };
  } catch (error) {
    // Only the project's own company holds the key; anyone else's files are de-identified on arrival.
    if (error instanceof CliError && error.code === EXIT.auth) return { where: 'portal', options: policy.options };
    throw error;
  }
}

async function firstBytes(file: string, length: number): Promise<Uint8Array> {
  const handle = await open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(length), 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * A file's de-identified bytes as parts: the engine's new header, then the file's own Pixel Data
 * (read from disk when sent). A small file is read whole; a larger one only as far as its header.
 * A file the engine refuses (not DICOM, a DICOMDIR…) is answered with the reason, in words.
 */
export async function deidentifyFile(file: string, size: number, policy: Policy, key: Uint8Array): Promise<{ parts: Part[] } | { refused: string; dicomdir: boolean }> {
  try {
    if (size > BUNDLE_MAX_MEMBER_BYTES) {
      try {
        const { head, tail } = deidentifyParts(await firstBytes(file, FIRST_READ_BYTES), policy, key, size);
        return { parts: tail ? [head, { path: file, start: tail.start, end: tail.end }] : [head] };
      } catch (error) {
        if (!(error instanceof NeedsWholeFile)) throw error;
      }
    }
    const whole = new Uint8Array(await readFile(file));
    const { head, tail } = deidentifyParts(whole, policy, key);
    return { parts: tail ? [head, whole.subarray(tail.start, tail.end)] : [head] };
  } catch (error) {
    // dcmjs throws its own errors on broken files; the sender gets words, not a parser's message.
    if (error instanceof DeidentificationError) return { refused: error.message, dicomdir: error.code === 'dicomdir' };
    return { refused: UNREADABLE_DICOM, dicomdir: false };
  }
}
