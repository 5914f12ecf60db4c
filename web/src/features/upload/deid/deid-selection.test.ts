import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync, strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { packBundle } from '../api/bundle';
import type { KeptFile } from '../file-filters';
import { DICOMDIR_LEFT_OUT, selectForDeidentification } from './deid-selection';
import { NOT_DICOM_ENTRY } from '../archives/open-archive';

const FIXTURES = path.resolve(__dirname, '../../../../../deid/test/fixtures/dicom');
const SERVER_FIXTURES = path.resolve(__dirname, '../../../../../server/test/fixtures/dicom');
const ct = new Uint8Array(readFileSync(path.join(FIXTURES, 's01_CT_small.dcm')));
const mr = new Uint8Array(readFileSync(path.join(FIXTURES, 's10_MR_small_implicit.dcm')));
const dicomdir = new Uint8Array(readFileSync(path.join(SERVER_FIXTURES, 's40_DICOMDIR')));

const kept = (name: string, content: BlobPart, kind: KeptFile['kind'], folder = ''): KeptFile => ({
  file: new File([content], name, { lastModified: 1_700_000_000_000 }),
  path: folder ? `${folder}/${name}` : name,
  kind,
});

describe('what a pick becomes in a project that de-identifies', () => {
  it('leaves out a DICOMDIR with the reason and keeps the images as the folder', async () => {
    const picked = await selectForDeidentification([kept('DICOMDIR', dicomdir, 'dicom', 'CD'), kept('IM000001', ct, 'dicom', 'CD')], 'CD');
    expect(picked.leftOut).toEqual([{ path: 'CD/DICOMDIR', reason: DICOMDIR_LEFT_OUT }]);
    expect(picked.groups.map((g) => [g.folder, g.kept.map((k) => k.path)])).toEqual([['CD', ['CD/IM000001']]]);
    expect(picked.refused).toEqual([]);
  });

  it.each(['scan.7z', 'scan.rar', 'scan.tar.bz2', 'scan.tar.xz', 'scan.gz'])('refuses %s with what to do instead', async (name) => {
    const picked = await selectForDeidentification([kept(name, 'packed', 'archive')], null);
    expect(picked.refused).toEqual([`${name} cannot be opened here: unpack it and send the folder`]);
    expect(picked.groups).toEqual([]);
  });

  it('opens a zip: its DICOM entries (stored or deflated) become a delivery named after it, the rest are listed', async () => {
    const zip = zipSync({
      'study/IM1': [ct, { level: 6 }],
      'study/IM2': [mr, { level: 0 }],
      'study/DICOMDIR': [dicomdir, { level: 6 }],
      'study/readme.txt': strToU8('Insert the disc'),
    });
    const picked = await selectForDeidentification([kept('export.zip', zip, 'archive')], null);
    expect(picked.groups.map((g) => [g.folder, g.kept.map((k) => k.path)])).toEqual([['export.zip', ['export.zip/study/IM1', 'export.zip/study/IM2']]]);
    expect(picked.leftOut).toEqual([
      { path: 'export.zip/study/readme.txt', reason: NOT_DICOM_ENTRY },
      { path: 'export.zip/study/DICOMDIR', reason: DICOMDIR_LEFT_OUT },
    ]);
  });

  it('opens a tar and a tar.gz the same way', async () => {
    const tar = new Uint8Array(
      await packBundle([
        { path: 'a/IM1', file: new File([ct], 'IM1') },
        { path: 'a/notes.txt', file: new File(['notes'], 'notes.txt') },
      ]).arrayBuffer(),
    );
    for (const [name, bytes] of [['cd.tar', tar], ['cd.tgz', gzipSync(tar)]] as const) {
      const picked = await selectForDeidentification([kept(name, bytes, 'archive')], null);
      expect(picked.refused).toEqual([]);
      expect(picked.groups).toHaveLength(1);
      const [group] = picked.groups;
      expect(group?.folder).toBe(name);
      expect(group?.kept.map((k) => k.path)).toEqual([`${name}/a/IM1`]);
      expect(new Uint8Array(await (group?.kept[0]?.file as File).arrayBuffer())).toEqual(ct);
      expect(picked.leftOut).toEqual([{ path: `${name}/a/notes.txt`, reason: NOT_DICOM_ENTRY }]);
    }
  });

  it('refuses a damaged archive in words', async () => {
    const picked = await selectForDeidentification([kept('broken.zip', 'not a zip at all', 'archive')], null);
    expect(picked.refused).toEqual(['broken.zip could not be opened (not a zip archive): unpack it and send the folder']);
  });
});
