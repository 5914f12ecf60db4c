// Series thumbnails (docs/web.md, "Thumbnails"): read with the session's bearer token, which an
// <img src> cannot carry, as a blob shown through an object URL. Kept in memory by URL with the
// server's ETag: asked again, the server answers 304 and the same object URL is shown. The
// server forbids the browser's own cache for pictures of patients, so nothing is kept on disk.
import { isAxiosError } from 'axios';
import { apiClient } from './api-client';

export type ThumbnailState = { kind: 'loading' } | { kind: 'ready'; src: string } | { kind: 'pending'; retryAfterMs: number } | { kind: 'failed'; reason: string };

/** When the server gives no words (a network failure, an older server). */
export const THUMBNAIL_UNAVAILABLE = 'No thumbnail could be loaded for this series.';

const cache = new Map<string, { etag: string; src: string }>();

export function seriesThumbnailPath(projectId: number, study: string, series: string): string {
  return `/study-petitions/${projectId}/studies/${encodeURIComponent(study)}/series/${encodeURIComponent(series)}/thumbnail`;
}

async function messageOf(data: unknown): Promise<string | null> {
  try {
    const text = data instanceof Blob ? await data.text() : typeof data === 'string' ? data : JSON.stringify(data);
    const message = (JSON.parse(text) as { message?: unknown }).message;
    return typeof message === 'string' ? message : null;
  } catch {
    return null;
  }
}

/** The series' thumbnail as the server has it now: the picture, still being made, or why there is none. */
export async function loadSeriesThumbnail(path: string): Promise<ThumbnailState> {
  const cached = cache.get(path);
  try {
    const response = await apiClient.get<Blob>(path, {
      responseType: 'blob',
      headers: cached ? { 'If-None-Match': cached.etag } : {},
      validateStatus: (status) => (status >= 200 && status < 300) || status === 304,
    });
    if (response.status === 304 && cached) return { kind: 'ready', src: cached.src };
    if (response.status === 202) {
      const seconds = Number(response.headers['retry-after']);
      return { kind: 'pending', retryAfterMs: (Number.isFinite(seconds) && seconds > 0 ? seconds : 5) * 1000 };
    }
    const etag = String(response.headers.etag ?? '');
    if (cached) URL.revokeObjectURL(cached.src);
    const src = URL.createObjectURL(response.data);
    if (etag) cache.set(path, { etag, src });
    return { kind: 'ready', src };
  } catch (error) {
    if (isAxiosError(error) && error.response) return { kind: 'failed', reason: (await messageOf(error.response.data)) ?? THUMBNAIL_UNAVAILABLE };
    return { kind: 'failed', reason: THUMBNAIL_UNAVAILABLE };
  }
}
