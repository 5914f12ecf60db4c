import { DUPLICATES_MAX_HASHES, listResponse, ZDuplicate, type TDuplicate } from '@portal/contract';
import { api } from '../../../lib/api-answer';

const ZDuplicatesAnswer = listResponse(ZDuplicate);

/** Which hashes the project holds already (POST …/files/duplicates), asked a thousand at a time. */
export async function findDuplicates(projectId: number, hashes: readonly string[]): Promise<Map<string, TDuplicate>> {
  const unique = [...new Set(hashes)];
  const found = new Map<string, TDuplicate>();
  for (let start = 0; start < unique.length; start += DUPLICATES_MAX_HASHES) {
    const { data } = await api.post(ZDuplicatesAnswer, `/study-petitions/${projectId}/files/duplicates`, { sha256: unique.slice(start, start + DUPLICATES_MAX_HASHES) });
    for (const duplicate of data) found.set(duplicate.sha256, duplicate);
  }
  return found;
}
