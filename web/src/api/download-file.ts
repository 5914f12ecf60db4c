// Downloads (docs/web.md, 'Downloads'). Files up to the server's DOWNLOAD_IN_PAGE_MAX_BYTES are
// read by the page, as the spec draws it: a blob with the 'Downloading file...' overlay and its
// percent. Larger files, and folders (zipped while sent, size unknown), would fill the page's
// memory that way, so they are handed to the browser's own download manager through a
// short-lived, single-use download link (POST /download-links): no token in any URL, and the
// browser can pause and resume them.
import { listResponse, ZDownloadLink, ZDownloadSettings, type TProjectFile } from '@portal/contract';
import { isAxiosError, type AxiosResponse } from 'axios';
import { api } from '../lib/api-answer';
import { apiClient } from '../lib/api-client';
import { clickDownload, saveBlob } from '../lib/save-blob';

/** How a download ended here: saved by the page, or handed to the browser's downloads. */
export type DownloadOutcome = 'saved' | 'handed-to-browser';

/** The toast after a hand-off: the browser, not the page, shows the rest. */
export const HANDED_TO_BROWSER_TEXT = "Download started: your browser's downloads show its progress";

/** What the server answers when it cannot say (an older server): the server's own default. */
export const DEFAULT_IN_PAGE_MAX_BYTES = 256 * 1024 * 1024;

const ZDownloadSettingsAnswer = listResponse(ZDownloadSettings);
const ZDownloadLinkAnswer = listResponse(ZDownloadLink);

export type DownloadProgress = (loaded: number, total: number | undefined) => void;

/** A blob response hides the server's JSON error body; read it back so the error mapping sees it. */
export async function decodeBlobError(error: unknown): Promise<void> {
  if (!isAxiosError(error) || !error.response || !(error.response.data instanceof Blob)) return;
  try {
    error.response.data = JSON.parse(await error.response.data.text()) as unknown;
  } catch {
    // Not JSON: the status alone decides the message.
  }
}

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

/** The spec's download call: the whole file as a blob, with progress. */
export async function downloadFile(fileId: number, onProgress: DownloadProgress): Promise<Blob> {
  return (await readBlob(`/download-study-petitions-files/${fileId}`, onProgress)).data;
}

/**
 * The largest download the page reads itself. Asked at each download (a small call beside a
 * download), so a changed setting applies without reloading the app; if the server cannot say,
 * its default applies.
 */
async function inPageMaxBytes(): Promise<number> {
  try {
    const { data } = await api.get(ZDownloadSettingsAnswer, '/download-links/settings');
    return data[0]?.in_page_max_bytes ?? DEFAULT_IN_PAGE_MAX_BYTES;
  } catch (error) {
    // An ended session must still end the download with the spec's message.
    if (isAxiosError(error) && error.response?.status === 401) throw error;
    return DEFAULT_IN_PAGE_MAX_BYTES;
  }
}

/** Asks for a download link and makes the browser fetch it; errors before that are the API's. */
async function handToBrowser(target: { file_id: number; entry_id?: number }): Promise<DownloadOutcome> {
  const { data } = await api.post(ZDownloadLinkAnswer, '/download-links', target);
  const link = data[0];
  if (!link) throw new Error('The server answered no download link');
  clickDownload(link.url);
  return 'handed-to-browser';
}

/** A row of the files table: small files by the page with progress, large ones and folders by the browser. */
export async function downloadProjectFile(
  file: Pick<TProjectFile, 'id' | 'file' | 'filesize' | 'kind'>,
  onProgress: DownloadProgress,
): Promise<DownloadOutcome> {
  if (file.kind === 'folder' || file.filesize > (await inPageMaxBytes())) return handToBrowser({ file_id: file.id });
  saveBlob(await downloadFile(file.id, onProgress), file.file);
  return 'saved';
}

/** One entry of a file's contents (the contents dialog), by the same rule as a file. */
export async function downloadEntry(
  fileId: number,
  entryId: number,
  size: number,
  onProgress: DownloadProgress = () => undefined,
): Promise<DownloadOutcome> {
  if (size > (await inPageMaxBytes())) return handToBrowser({ file_id: fileId, entry_id: entryId });
  // `size` stands for the total when the answer states no length.
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
