// Input files for the upload benchmark: gigabytes written fast by repeating one random block,
// shaped as DICOM (preamble + "DICM") so the portal accepts a `.dcm` name and its processing only
// reads a header, not the whole file, while the upload is being measured.
import { createHash, randomBytes } from 'node:crypto';
import { open } from 'node:fs/promises';

const BLOCK_BYTES = 64 * 1024 * 1024;

export interface InputFile {
  path: string;
  bytes: number;
  sha256: string;
}

export async function writeInputFile(path: string, bytes: number): Promise<InputFile> {
  const block = randomBytes(Math.min(BLOCK_BYTES, bytes));
  block.fill(0, 0, Math.min(128, block.length));
  if (block.length >= 132) block.write('DICM', 128, 'latin1');
  const hash = createHash('sha256');
  const handle = await open(path, 'w');
  try {
    for (let written = 0; written < bytes; ) {
      const length = Math.min(block.length, bytes - written);
      const chunk = block.subarray(0, length);
      await handle.write(chunk, 0, length);
      hash.update(chunk);
      written += length;
    }
    // On disk before the first measurement, which would otherwise share the disk with its writeback.
    await handle.sync();
  } finally {
    await handle.close();
  }
  return { path, bytes, sha256: hash.digest('hex') };
}
