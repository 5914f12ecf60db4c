// The project's de-identification policy and, for its own company's users, its key (issue 33):
// what the upload dialog needs to remove patient identity before any byte is sent.
import { listResponse, ZProjectKey, type TDeidentificationOption, type TDeidentificationPolicy } from '@portal/contract';
import { isAxiosError } from 'axios';
import { getDeidentificationPolicy } from '../../../api/deidentification-policy';
import { api } from '../../../lib/api-answer';

const ZProjectKeyAnswer = listResponse(ZProjectKey);

export type UploadDeidentification =
  | { profile: 'off' }
  /** `key` is null for a user outside the project's company (SysUser, SysAdmin): the server removes identity. */
  | { profile: 'basic'; options: TDeidentificationOption[]; edition: string; key: Uint8Array | null };

function fromBase64Url(text: string): Uint8Array {
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

const statusOf = (error: unknown): number | undefined => (isAxiosError(error) ? error.response?.status : undefined);

/**
 * Reads the policy, then the key when the profile asks for one. A 404 for the policy is a server
 * from before issue 33 (an unknown project refuses the upload itself): its uploads are kept as sent.
 * Any other failure is thrown, so that nothing is sent without knowing whether it must be changed.
 */
export async function getUploadDeidentification(projectId: number): Promise<UploadDeidentification> {
  let policy: TDeidentificationPolicy | null;
  try {
    policy = await getDeidentificationPolicy(projectId);
  } catch (error) {
    if (statusOf(error) === 404) return { profile: 'off' };
    throw error;
  }
  if (!policy) throw new Error('The server did not return the project’s de-identification policy');
  if (policy.profile === 'off') return { profile: 'off' };
  let key: Uint8Array | null = null;
  try {
    const { data } = await api.get(ZProjectKeyAnswer, `/study-petitions/${projectId}/deidentification/key`);
    const text = data[0]?.key;
    if (!text) throw new Error('The server did not return the project key');
    key = fromBase64Url(text);
  } catch (error) {
    // Only the project's own company holds the key; anyone else's files are de-identified on arrival.
    if (statusOf(error) !== 403) throw error;
  }
  return { profile: 'basic', options: policy.options, edition: policy.edition, key };
}
