import { readFileSync } from 'node:fs';
import path from 'node:path';
import { deidentify, type Policy } from '@portal/deid';
import dcmjs from 'dcmjs';
import { deflateSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { compressionOf, markDeflated } from '../archives/entry-source';
import { packBundle, packPacked } from '../api/bundle';
import { DAMAGED_ENTRY, FIRST_READ_BYTES, packDeidBatch, runDeidBatch, transferablesOf, WHOLE_READ_BYTES } from './deid-work';

const FIXTURES = path.resolve(__dirname, '../../../../../deid/test/fixtures/dicom');
const ct = new Uint8Array(readFileSync(path.join(FIXTURES, 's01_CT_small.dcm')));
const KEY = new Uint8Array(32).map((_, i) => i + 3);
const POLICY: Policy = { profile: 'basic', options: [] };
const blob = (bytes: Uint8Array) => new Blob([bytes as Uint8Array<ArrayBuffer>]);

/** The CT with a private value of `privateBytes` before Pixel Data, and Pixel Data of `pixelBytes` (its own when 0). */
function ctWith(privateBytes: number, pixelBytes = 0): Uint8Array {
  const file = dcmjs.data.DicomMessage.readFile(ct.slice().buffer);
  file.dict['00290010'] = { vr: 'LO', Value: ['BENCH CREATOR'] };
  file.dict['00291010'] = { vr: 'OB', Value: [new Uint8Array(privateBytes).fill(65).buffer] };
  if (pixelBytes > 0) file.dict['7FE00010'] = { vr: 'OW', Value: [new Uint8Array(pixelBytes).fill(9).buffer] };
  return new Uint8Array(file.write());
}
const longHeaderCt = () => ctWith(FIRST_READ_BYTES + 6000);

describe('de-identifying a batch of files', () => {
  it('answers each file made as the engine makes it, from its first bytes or, for a long header, from all of them', async () => {
    const long = longHeaderCt();
    const zipEntry = blob(deflateSync(ct));
    markDeflated(zipEntry);
    const damaged = blob(new Uint8Array([1, 2, 3]));
    markDeflated(damaged);
    const files = [blob(ct), blob(long), zipEntry, blob(new Uint8Array(300).fill(7)), damaged];
    const outcomes = await runDeidBatch({ files: files.map((file) => ({ file, compression: compressionOf(file) })), policy: POLICY, key: KEY });
    expect(outcomes).toHaveLength(5);
    const assembled = async (i: number) => {
      const outcome = outcomes[i]!;
      if ('refused' in outcome) throw new Error(outcome.refused);
      return outcome.made instanceof Uint8Array ? outcome.made : new Uint8Array(await outcome.made.arrayBuffer());
    };
    expect(await assembled(0)).toEqual(deidentify(ct, POLICY, KEY).bytes);
    // A header longer than the first read: read again whole, same output.
    expect(await assembled(1)).toEqual(deidentify(long, POLICY, KEY).bytes);
    // A zip entry is unpacked here.
    expect(await assembled(2)).toEqual(deidentify(ct, POLICY, KEY).bytes);
    // Not DICOM, and a damaged zip entry: refused in words, the others unaffected.
    expect(outcomes[3]).toEqual({ refused: expect.stringMatching(/not a DICOM file/) });
    expect(outcomes[4]).toEqual({ refused: DAMAGED_ENTRY });
    // Small files are answered as bytes in one buffer, which the worker hands over without a copy.
    expect(transferablesOf(outcomes)).toHaveLength(1);
  });

  it('answers a file larger than a whole read as a Blob of its new header and its own Pixel Data, its header read first or whole', async () => {
    const big = ctWith(100, WHOLE_READ_BYTES + 1000);
    const bigLongHeader = ctWith(FIRST_READ_BYTES + 6000, WHOLE_READ_BYTES + 1000);
    const outcomes = await runDeidBatch({ files: [blob(big), blob(bigLongHeader), blob(ct)].map((file) => ({ file, compression: 'none' as const })), policy: POLICY, key: KEY });
    for (const [i, input] of [big, bigLongHeader].entries()) {
      const outcome = outcomes[i]!;
      if (!('made' in outcome) || outcome.made instanceof Uint8Array) throw new Error(`file ${i} was not answered as a Blob`);
      expect(new Uint8Array(await outcome.made.arrayBuffer())).toEqual(deidentify(input, POLICY, KEY).bytes);
    }
    expect(outcomes[2]).toEqual({ made: deidentify(ct, POLICY, KEY).bytes });
  });

  it('packs a bundle’s members as the tar of their made bytes, byte for byte what packing the made files gives, and names those refused', async () => {
    const long = longHeaderCt();
    const inputs = [ct, new Uint8Array(300).fill(7), long];
    const members = [{ path: 'DICOM/IM000001', mtimeMs: 1_700_000_000_000 }, { path: 'NOTES', mtimeMs: 0 }, { path: `DICOM/${'SERIES'.repeat(20)}/IM000003`, mtimeMs: 5_000 }];
    const packed = await packDeidBatch({ files: inputs.map((bytes) => ({ file: blob(bytes), compression: 'none' as const })), members, policy: POLICY, key: KEY });
    expect(packed.refused).toEqual([{ path: 'NOTES', reason: expect.stringMatching(/not a DICOM file/) }]);
    const made = [0, 2].map((i) => ({
      path: members[i]!.path,
      file: new File([deidentify(inputs[i]!, POLICY, KEY).bytes as Uint8Array<ArrayBuffer>], 'made', { lastModified: members[i]!.mtimeMs }),
    }));
    const bytes = async (b: Blob) => new Uint8Array(await b.arrayBuffer());
    expect(await bytes(packPacked([packed.tar]))).toEqual(await bytes(packBundle(made)));
  });
});
