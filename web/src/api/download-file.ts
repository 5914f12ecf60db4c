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

export async function downloadFile(fileId: number, onProgress: (loaded: number, total: number | undefined) => void): Promise<Blob> {
  try {
    const { data } = await apiClient.get<Blob>(`/download-study-petitions-files/${fileId}`, {
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
