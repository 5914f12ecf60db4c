import dcmjs, { type DicomDict } from 'dcmjs';
import { decoderFor, withDecoder } from './charset.js';
import { DeidentificationError } from './errors.js';
import { NeedsWholeFile, toPart10, type Part10, type Route } from './part10.js';

// dcmjs logs every oddity it tolerates (e.g. "Invalid vr type xs") to the console; the engine
// reports in words what matters, and a server or worker must not print one line per file.
dcmjs.log.setLevel('error');
dcmjs.log.getLogger?.('validation.dcmjs').setLevel('silent');

export interface ReadResult { dicom: DicomDict; part10: Part10 }

/**
 * `input` may be the first bytes of a file of `totalSize` bytes (toPart10); the elements `route`
 * copies or stubs are not read (the dataset read lacks them).
 */
export function readDicom(input: Uint8Array, totalSize = input.length, route?: Route): ReadResult {
  const part10 = toPart10(input, totalSize, route);
  const decoder = decoderFor(part10.characterSet);
  try {
    // `file` ends before Pixel Data, which is taken from the input byte for byte (deidentify.ts).
    const dicom = withDecoder(decoder, () => dcmjs.data.DicomMessage.readFile(part10.file, { noCopy: true }));
    return { dicom, part10 };
  } catch (error) {
    if (error instanceof DeidentificationError || error instanceof NeedsWholeFile) throw error;
    throw new DeidentificationError('unreadable',
      'This DICOM file is damaged or uses an encoding that cannot be read here, so it cannot be de-identified. Export it again from the imaging system.');
  }
}
