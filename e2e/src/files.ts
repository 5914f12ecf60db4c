// Real files for the upload flows: the server's DICOM fixtures, and archives made by real tools.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { REPO_ROOT } from './portal.js';

const exec = promisify(execFile);

export const DICOM_DIR = path.join(REPO_ROOT, 'server', 'test', 'fixtures', 'dicom');

/** One CT image: a single study, series and instance. */
export const CT_SMALL = 's01_CT_small.dcm';
/** Five instances of one CT series, all in one study. */
export const CT_SERIES = [
  's03_CT_series5N_2062.dcm',
  's04_CT_series5N_2392.dcm',
  's05_CT_series5N_2693.dcm',
  's06_CT_series5N_3023.dcm',
  's07_CT_series5N_3353.dcm',
] as const;
/** Two single-instance studies of other modalities, for the folder upload. */
export const MR_SMALL = 's10_MR_small_implicit.dcm';
export const RT_DOSE = 's21_RTDOSE_implicit.dcm';

export function dicomPath(name: string): string {
  return path.join(DICOM_DIR, name);
}

/** Read as a stream, so a file of gigabytes is hashed in little memory. */
export async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

export interface Workspace {
  dir: string;
  remove(): Promise<void>;
}

export async function makeWorkspace(): Promise<Workspace> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'portal-e2e-files-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** A zip made by bsdtar (libarchive), the way a partner's own tools would make one. */
export async function makeZip(target: string, sourceDir: string, names: readonly string[]): Promise<string> {
  await exec('bsdtar', ['--format', 'zip', '-cf', target, '-C', sourceDir, ...names]);
  return target;
}

/** A folder as a user would pick it: files the filter keeps and one it must leave out. */
export async function makeFolder(dir: string, dicomNames: readonly string[], otherNames: readonly string[]): Promise<string> {
  await mkdir(dir, { recursive: true });
  for (const name of dicomNames) await copyFile(dicomPath(name), path.join(dir, name));
  for (const name of otherNames) await writeFile(path.join(dir, name), `Notes that are not imaging data: ${name}\n`);
  return dir;
}

/**
 * A patient CD as hospitals burn it: a DICOMDIR index at the top and the images in nested folders
 * under names without an extension (IM000001…), beside a README the portal must leave out.
 */
export async function makeCdExport(dir: string, imageNames: readonly string[]): Promise<string[]> {
  const series = path.join(dir, 'DICOM', 'ST000001', 'SE000001');
  await mkdir(series, { recursive: true });
  await copyFile(dicomPath('s40_DICOMDIR'), path.join(dir, 'DICOMDIR'));
  const images = imageNames.map((name, i) => ({ name, target: `IM${String(i + 1).padStart(6, '0')}` }));
  for (const { name, target } of images) await copyFile(dicomPath(name), path.join(series, target));
  await writeFile(path.join(dir, 'README.TXT'), 'Insert this CD and run the viewer to see the images.\n');
  return images.map((i) => i.target);
}

/**
 * A CD export of `count` real CT images (copies of the small CT slice, each with its own SOP Instance
 * UID, so that none repeats another) in series folders of 200, with its DICOMDIR: a big folder as a
 * PACS or a patient CD lays it out. The UID's last part is rewritten in place (same length), in the
 * file meta and the data set alike.
 */
export async function makeBigCdExport(dir: string, count: number): Promise<void> {
  const source = await readFile(dicomPath(CT_SMALL));
  const uid = Buffer.from('1.3.6.1.4.1.5962.1.1.1.1.1.20040119072730.12322');
  const stem = uid.subarray(0, uid.length - 5);
  const places: number[] = [];
  for (let at = source.indexOf(uid); at >= 0; at = source.indexOf(uid, at + 1)) places.push(at);
  if (places.length !== 2 || count > 90_000) throw new Error(`${CT_SMALL} no longer holds its SOP Instance UID twice, or ${count} images are too many`);
  await mkdir(dir, { recursive: true });
  await copyFile(dicomPath('s40_DICOMDIR'), path.join(dir, 'DICOMDIR'));
  const perSeries = 200;
  for (let series = 0; series * perSeries < count; series++) {
    const folder = path.join(dir, 'DICOM', 'ST000001', `SE${String(series + 1).padStart(6, '0')}`);
    await mkdir(folder, { recursive: true });
    const writes: Promise<void>[] = [];
    for (let i = series * perSeries; i < Math.min(count, (series + 1) * perSeries); i++) {
      const image = Buffer.from(source);
      const own = Buffer.concat([stem, Buffer.from(String(10_000 + i))]);
      for (const at of places) own.copy(image, at);
      writes.push(writeFile(path.join(folder, `IM${String(i + 1).padStart(6, '0')}`), image));
    }
    await Promise.all(writes);
  }
}

/**
 * A plain tar of `bytes` (a DICOM image and a zero-filled scan export), made by bsdtar: a real
 * archive the server accepts by its first bytes, large enough to be uploaded chunk by chunk.
 */
export async function makeLargeTar(target: string, bytes: number): Promise<string> {
  const source = await mkdtemp(path.join(os.tmpdir(), 'portal-e2e-large-'));
  try {
    await copyFile(dicomPath(CT_SMALL), path.join(source, CT_SMALL));
    // Written, not truncated: a sparse file would go into the tar as a few bytes of sparse map.
    await exec('dd', ['if=/dev/zero', `of=${path.join(source, 'export.raw')}`, 'bs=1048576', `count=${Math.ceil(bytes / 1048576)}`, 'status=none']);
    await exec('bsdtar', ['-cf', target, '-C', source, CT_SMALL, 'export.raw']);
  } finally {
    await rm(source, { recursive: true, force: true });
  }
  return target;
}
