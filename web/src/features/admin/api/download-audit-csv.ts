import { attachmentName, decodeBlobError } from '../../../api/download-file';
import { apiClient } from '../../../lib/api-client';
import { saveBlob } from '../../../lib/save-blob';
import { auditParams, type AuditFilters } from './get-audit';

/**
 * Every row matching the filters as CSV, saved by the browser. Read through the one client, so
 * the token travels in its header and never in a URL (a link to the CSV would have to hold it).
 */
export async function downloadAuditCsv(filters: AuditFilters): Promise<void> {
  try {
    const response = await apiClient.get<Blob>('/admin/audit', {
      params: { ...auditParams(filters), format: 'csv' },
      responseType: 'blob',
      // The whole trail may be asked for; it takes as long as it takes, like any download (spec §9).
      timeout: 0,
    });
    saveBlob(response.data, attachmentName(response.headers['content-disposition']) ?? 'audit.csv');
  } catch (error) {
    await decodeBlobError(error);
    throw error;
  }
}
