// The packing read back by a real tar reader (bsdtar), and compared with what the contract's
// functions say each member's place is: what the server will read is what the files hold.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bundleSize, TAR_END, tarMemberHeader, tarPadding } from '@portal/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { memberOf, packBundle, signatureOf, type BundleFile } from './bundle';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function entry(filePath: string, content: Uint8Array<ArrayBuffer> | string, lastModified = 1_700_000_000_000): BundleFile {
  return { path: filePath, file: new File([content], path.basename(filePath), { lastModified }) };
}

const random = (size: number): Uint8Array<ArrayBuffer> => Uint8Array.from({ length: size }, (_, i) => (i * 7919 + size) % 251);

const files = [
  entry('DICOMDIR', random(1234)),
  entry('DICOM/ST000001/SE000001/IM000001', random(512)),
  entry('DICOM/ST000001/SE000001/IM000002', random(1)),
  entry('DICOM/ST000001/SE000002/IM000001', random(1024 * 1024)),
  // Past ustar's 100 bytes, and not ASCII: both travel in a pax record.
  entry(`DICOM/${'very-long-folder-name/'.repeat(6)}IM000003`, random(700)),
  entry('Befunde/Röntgen Thorax.dcm', 'ä'.repeat(300)),
];

async function bytesOf(blob: Blob): Promise<Uint8Array> {
  return new Uint8Array(await blob.arrayBuffer());
}

describe('a bundle of a folder\'s files', () => {
  it('is a tar that bsdtar lists and extracts with every file\'s path, size, time and bytes', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'h14w-bundle-'));
    dirs.push(dir);
    const tar = path.join(dir, 'bundle.tar');
    writeFileSync(tar, await bytesOf(packBundle(files)));
    const listed = execFileSync('bsdtar', ['-tf', tar], { encoding: 'utf8' }).trim().split('\n');
    expect(listed).toEqual(files.map((f) => f.path));

    const out = path.join(dir, 'out');
    execFileSync('mkdir', [out]);
    execFileSync('bsdtar', ['-xf', tar, '-C', out]);
    for (const f of files) {
      expect(new Uint8Array(readFileSync(path.join(out, f.path)))).toEqual(await bytesOf(f.file));
    }
    const verbose = execFileSync('bsdtar', ['-tvf', tar], { encoding: 'utf8', env: { ...process.env, TZ: 'UTC' } });
    expect(verbose).toContain('Nov 14  2023 DICOMDIR');
  });

  it('holds each file at the offset the contract gives, its headers before it, and ends as the contract says', async () => {
    const tar = await bytesOf(packBundle(files));
    expect(tar.length).toBe(bundleSize(files.map(memberOf)));
    let at = 0;
    for (const f of files) {
      const header = tarMemberHeader(memberOf(f));
      expect(tar.subarray(at, at + header.length)).toEqual(header);
      at += header.length;
      expect(tar.subarray(at, at + f.file.size)).toEqual(await bytesOf(f.file));
      at += f.file.size;
      expect(tar.subarray(at, at + tarPadding(f.file.size).length).every((b) => b === 0)).toBe(true);
      at += tarPadding(f.file.size).length;
    }
    expect(tar.subarray(at)).toEqual(TAR_END);
  });

  it('has a signature that stays for the same files and changes with any path, size or time', () => {
    const again = files.map((f) => entry(f.path, 'x'.repeat(f.file.size), f.file.lastModified));
    expect(signatureOf(again)).toBe(signatureOf(files));
    const [first, ...rest] = files as [BundleFile, ...BundleFile[]];
    expect(signatureOf([entry('DICOMDIR2', random(1234)), ...rest])).not.toBe(signatureOf(files));
    expect(signatureOf([entry('DICOMDIR', random(1235)), ...rest])).not.toBe(signatureOf(files));
    expect(signatureOf([entry('DICOMDIR', random(1234), 1_700_000_000_001), ...rest])).not.toBe(signatureOf(files));
    expect(signatureOf(rest)).not.toBe(signatureOf(files));
    expect(signatureOf([...rest, first])).not.toBe(signatureOf(files));
  });
});
