// GET /upload-settings: the chunk size the operator chose (UPLOAD_CHUNK_BYTES), which a large file's
// tus upload follows. Small files go whole with their creation and never ask (tus-upload.ts).
import { listResponse, ZUploadSettings } from '@portal/contract';
import { api } from '../../../lib/api-answer';
import { DEFAULT_CHUNK_BYTES } from './tus-chunk';

/**
 * One answer serves the uploads that start within this time: four large files picked together ask
 * once, and a setting the operator changed reaches an open page within a minute.
 */
export const SETTINGS_REUSE_MS = 60_000;

const ZUploadSettingsAnswer = listResponse(ZUploadSettings);

/** The server's chunk size, or undefined when it cannot say (a failed call, an older server, an answer that is not a size). */
export async function getChunkBytes(): Promise<number | undefined> {
  try {
    const { data } = await api.get(ZUploadSettingsAnswer, '/upload-settings');
    const bytes = data[0]?.chunk_bytes;
    return bytes !== undefined && Number.isSafeInteger(bytes) && bytes > 0 ? bytes : undefined;
  } catch {
    // An answer that is not the contract's shape leaves the default too. An ended session is the upload's own first request to report, with the usual wording.
    return undefined;
  }
}

/**
 * Reads the chunk size, asking the server at most once per SETTINGS_REUSE_MS; when it cannot say,
 * the default applies and nothing is kept, so the next large file asks again.
 */
export function chunkBytesReader(now: () => number = () => Date.now()): () => Promise<number> {
  let kept: { at: number; bytes: Promise<number | undefined> } | undefined;
  return async () => {
    const time = now();
    if (!kept || time - kept.at >= SETTINGS_REUSE_MS) kept = { at: time, bytes: getChunkBytes() };
    const asked = kept;
    const bytes = await asked.bytes;
    if (bytes === undefined && kept === asked) kept = undefined;
    return bytes ?? DEFAULT_CHUNK_BYTES;
  };
}
