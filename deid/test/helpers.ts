import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import dcmjs, { type Dict } from 'dcmjs';

export const KEY = new Uint8Array(32).map((_, i) => i + 1);
export const OTHER_KEY = new Uint8Array(32).map((_, i) => 200 - i);
export const FIXTURES = new URL('./fixtures/dicom/', import.meta.url).pathname;

export function fixture(name: string): Uint8Array {
  return new Uint8Array(readFileSync(join(FIXTURES, name)));
}
export function corpus(): string[] {
  return readdirSync(FIXTURES).filter((f) => /^s\d\d_/.test(f)).sort();
}

/** A Part 10 file (explicit VR little endian) holding `dict`. */
export function part10(dict: Dict, sopInstanceUid = '1.2.826.0.1.3680043.8.498.1'): Uint8Array {
  const meta: Dict = {
    '00020001': { vr: 'OB', Value: [new Uint8Array([0, 1]).buffer] },
    '00020002': { vr: 'UI', Value: ['1.2.840.10008.5.1.4.1.1.7'] },
    '00020003': { vr: 'UI', Value: [sopInstanceUid] },
    '00020010': { vr: 'UI', Value: ['1.2.840.10008.1.2.1'] },
    '00020012': { vr: 'UI', Value: ['1.2.826.0.1.3680043.8.498.2'] },
  };
  const file = new dcmjs.data.DicomDict(meta);
  file.dict = dict;
  return new Uint8Array(file.write());
}

export function read(bytes: Uint8Array): { meta: Dict; dict: Dict } {
  const copy = bytes.slice().buffer;
  const { meta, dict } = dcmjs.data.DicomMessage.readFile(copy);
  return { meta, dict };
}

const work = mkdtempSync(join(tmpdir(), 'deid-test-'));
let n = 0;
export function toFile(bytes: Uint8Array, name = `f${n++}.dcm`): string {
  const path = join(work, name);
  writeFileSync(path, bytes);
  return path;
}

/** dcmtk's reading of a file: exit status, warnings and errors, and the full dump (+L). */
export function dcmdump(path: string): { status: number | null; stderr: string; text: string } {
  const r = spawnSync('dcmdump', ['+L', '+U8', path], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return { status: r.status, stderr: r.stderr, text: r.stdout };
}

export function dcmftest(path: string): string {
  return execFileSync('dcmftest', [path], { encoding: 'utf8' });
}

/**
 * Every Pixel Data value (native) or item (encapsulated) as dcmtk writes it out (+W), byte for
 * byte, in file order; the top-level Pixel Data comes last (an icon's comes before it).
 */
export function pixelDataByDcmtk(path: string): Buffer[] {
  const dir = mkdtempSync(join(work, 'px-'));
  spawnSync('dcmdump', ['-q', '+P', '7fe0,0010', '+W', dir, path]);
  const index = (f: string) => Number(/\.(\d+)\.raw$/.exec(f)?.[1]);
  return readdirSync(dir).sort((a, b) => index(a) - index(b)).map((f) => readFileSync(join(dir, f)));
}
