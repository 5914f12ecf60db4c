import { isAxiosError } from 'axios';
import { apiClient } from '../lib/api-client';

/** A blob response hides the server's JSON error body; read it back so the error mapping sees it. */
async function decodeBlobError(error: unknown): Promise<void> {
  if (!isAxiosError(error) || !error.response || !(error.response.data instanceof Blob)) return;
  try {
    error.response.data = JSON.parse(await error.response.data.text()) as unknown;
  } catch {
    // Not JSON: the status alone decides the message.
  }
}

type DownloadProgress = (loaded: number, total: number | undefined) => void;

async function downloadBlob(url: string, onProgress: DownloadProgress): Promise<Blob> {
  try {
    const { data } = await apiClient.get<Blob>(url, {
      responseType: 'blob',
      // Spec §9: downloads of any size may take as long as they need.
      timeout: 0,
      onDownloadProgress: (event) => onProgress(event.loaded, event.total),
    });
    return data;
  } catch (error) {
    await decodeBlobError(error);
    throw error;
  }
}

export function downloadFile(fileId: number, onProgress: DownloadProgress): Promise<Blob> {
  return downloadBlob(`/download-study-petitions-files/${fileId}`, onProgress);
}

/**
 * One kept entry of an upload's contents (the contents dialog), read like a file; `size` stands
 * for the total when the answer does not state its length.
 */
export function downloadEntry(fileId: number, entryId: number, size: number, onProgress: DownloadProgress): Promise<Blob> {
  return downloadBlob(`/study-petitions-files/${fileId}/contents/${entryId}/download`, (loaded, total) => onProgress(loaded, total ?? size));
}
