import type { TEntryKind, TFileContents, TProjectFile } from '@portal/contract';
import { isAxiosError } from 'axios';
import { apiClient } from '../../../lib/api-client';

export async function listFiles(projectId: number): Promise<TProjectFile[]> {
  const { data } = await apiClient.get<{ data: TProjectFile[] }>('/study-petitions-files', {
    params: { study_petition_id: projectId },
  });
  return data.data;
}

export async function deleteFile(fileId: number): Promise<void> {
  await apiClient.put(`/study-petitions-files-delete/${fileId}`);
}

/** Spec §7: bulk delete is one call per file, one after the other. */
export async function deleteFilesSequentially(fileIds: readonly number[]): Promise<void> {
  for (const id of fileIds) await deleteFile(id);
}

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

export interface ContentsQuery {
  offset: number;
  limit: number;
  kind?: TEntryKind | undefined;
}

export async function getFileContents(fileId: number, query: ContentsQuery): Promise<TFileContents> {
  const { data } = await apiClient.get<TFileContents | { data: TFileContents }>(`/study-petitions-files/${fileId}/contents`, {
    params: query,
  });
  // The server wraps answers in {data} (DESIGN §4); the contract describes the bare contents, so both are read.
  return 'data' in data ? data.data : data;
}
