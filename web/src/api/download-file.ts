import { isAxiosError, type AxiosResponse } from 'axios';
import { apiClient } from '../lib/api-client';
import { saveBlob } from '../lib/save-blob';

/** How a download ended: saved by the page (large ones go to the browser's downloads with issue 14 item 8). */
export type DownloadOutcome = 'saved';

/** A blob response hides the server's JSON error body; read it back so the error mapping sees it. */
async function decodeBlobError(error: unknown): Promise<void> {
  if (!isAxiosError(error) || !error.response || !(error.response.data instanceof Blob)) return;
  try {
    error.response.data = JSON.parse(await error.response.data.text()) as unknown;
  } catch {
    // Not JSON: the status alone decides the message.
  }
}

export type DownloadProgress = (loaded: number, total: number | undefined) => void;

async function readBlob(url: string, onProgress: DownloadProgress): Promise<AxiosResponse<Blob>> {
  try {
    return await apiClient.get<Blob>(url, {
      responseType: 'blob',
      // Spec §9: downloads of any size may take as long as they need.
      timeout: 0,
      onDownloadProgress: (event) => onProgress(event.loaded, event.total),
    });
  } catch (error) {
    await decodeBlobError(error);
    throw error;
  }
}

export async function downloadFile(fileId: number, onProgress: DownloadProgress): Promise<Blob> {
  return (await readBlob(`/download-study-petitions-files/${fileId}`, onProgress)).data;
}

/**
 * One kept entry of an upload's contents (the contents dialog), read like a file and saved under
 * the name the server gives it; `size` stands for the total when the answer states no length.
 */
export async function downloadEntry(fileId: number, entryId: number, size: number, onProgress: DownloadProgress = () => undefined): Promise<DownloadOutcome> {
  const response = await readBlob(`/study-petitions-files/${fileId}/contents/${entryId}/download`, (loaded, total) => onProgress(loaded, total ?? size));
  saveBlob(response.data, attachmentName(response.headers['content-disposition']) ?? `entry-${entryId}`);
  return 'saved';
}

/** The name in a Content-Disposition header: `filename*` (RFC 5987, exact) before `filename`. */
export function attachmentName(header: unknown): string | undefined {
  if (typeof header !== 'string') return undefined;
  const extended = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(header);
  if (extended?.[1]) {
    try {
      return decodeURIComponent(extended[1].trim());
    } catch {
      // A malformed encoding: the plain name below.
    }
  }
  const plain = /filename\s*=\s*(?:"([^"]*)"|([^;\s]+))/i.exec(header);
  return plain?.[1] ?? plain?.[2] ?? undefined;
}
