// A file or an archive sent as one upload of the project (docs/api.md, "Resumable uploads").
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { CliError, EXIT } from './exit-codes.js';
import { partsOf } from './made-parts.js';
import { Progress } from './progress.js';
import type { Run, Sent } from './run.js';
import { send } from './send.js';

export async function sendFile(run: Run, file: string): Promise<Sent> {
  const name = path.basename(file);
  const { size, mtimeMs } = await stat(file);
  if (size === 0) throw new CliError(EXIT.refused, `${file} is empty; there is nothing to send.`);
  const leaving = { path: name, absolute: path.resolve(file), size, mtimeMs: Math.floor(mtimeMs) };
  const parts = await partsOf(leaving, run.deid);
  if (!Array.isArray(parts)) {
    throw new CliError(
      EXIT.refused,
      `${file} was not sent: ${parts.reason} This project removes patient identity before upload, which portal-upload does for DICOM files only: to send an archive, unpack it and send its folder.`,
    );
  }
  const state = await run.progressOf(file);
  const progress = new Progress(run.out, size, 1);
  const key = `file:${size}:${leaving.mtimeMs}${run.deidTag}`;
  const fileId = await send(
    { api: run.api, state, progress, chunkBytes: await run.chunkBytes() },
    { key, doing: name, parts, originalBytes: size, metadata: { filename: name, studypetitionid: String(run.projectId) } },
  );
  progress.filesDone(1);
  progress.end();
  await state.finish();
  if (fileId === null) throw new CliError(EXIT.unexpected, `The portal stored ${name} but named no file for it.`);
  return { name, fileId, files: 1, leftOut: [] };
}
