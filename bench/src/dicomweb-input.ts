// The data of the DICOMweb benchmark: N copies of the shared small CT slice, each with its own SOP
// Instance UID (bench:files' cache, dcmtk's `dcmodify -gin`), regrouped by `dcmodify -m` into
// studies of one series of `perSeries` instances each, a patient per study, with fixed UIDs, in a
// cache folder made once and reused. The portal and Orthanc are given the same files.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { prepareFileSet } from './files-input.js';

const run = promisify(execFile);

export interface Study {
  study: string;
  series: string;
  /** File paths of its instances. */
  files: string[];
}

export interface DicomwebData {
  studies: Study[];
  bytes: number;
}

/** A fixed UID under the 2.25 root (a UUID-derived number), the same in every run. */
const uid = (kind: number, index: number) => `2.25.${(3141592653589793n * 1000n + BigInt(kind * 100 + index)).toString()}`;

export async function prepareDicomwebData(cacheRoot: string, source: string, count: number, perSeries: number): Promise<DicomwebData> {
  const set = await prepareFileSet(cacheRoot, source, count);
  const cache = path.join(cacheRoot, `dicomweb-${path.basename(source, '.dcm')}-${count}-${perSeries}`);
  const done = path.join(cache, 'complete');
  const studies: Study[] = [];
  for (let at = 0, s = 0; at < set.names.length; at += perSeries, s += 1) {
    studies.push({ study: uid(1, s), series: uid(2, s), files: set.names.slice(at, at + perSeries).map((name) => path.join(cache, name)) });
  }
  if (!(await exists(done))) {
    await rm(cache, { recursive: true, force: true });
    await mkdir(cache, { recursive: true });
    for (const [s, study] of studies.entries()) {
      for (const file of study.files) await copyFile(path.join(set.dir, path.basename(file)), file);
      const names = study.files.map((f) => path.basename(f));
      await run(
        'dcmodify',
        ['-nb', '-q', '-m', `(0020,000D)=${study.study}`, '-m', `(0020,000E)=${study.series}`, '-m', `(0010,0010)=BENCH^PATIENT${s}`, '-m', `(0010,0020)=BENCH${s}`, ...names],
        { cwd: cache, maxBuffer: 1 << 24 },
      );
    }
    await writeFile(done, '');
  }
  let bytes = 0;
  for (const study of studies) for (const file of study.files) bytes += (await stat(file)).size;
  return { studies, bytes };
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}
