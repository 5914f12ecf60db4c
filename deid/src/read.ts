import dcmjs, { type DicomDict } from 'dcmjs';
import { decoderFor, withDecoder } from './charset.js';
import { DeidentificationError } from './errors.js';
import { toPart10, type Part10 } from './part10.js';

// dcmjs logs every oddity it tolerates (e.g. "Invalid vr type xs") to the console; the engine
// reports in words what matters, and a server or worker must not print one line per file.
dcmjs.log.setLevel('error');
dcmjs.log.getLogger?.('validation.dcmjs').setLevel('silent');

export interface ReadResult { dicom: DicomDict; part10: Part10 }

export function readDicom(input: Uint8Array): ReadResult {
  const part10 = toPart10(input);
  const decoder = decoderFor(part10.characterSet);
  try {
    // Reading stops at Pixel Data, which is copied from the input byte for byte (deidentify.ts).
    const dicom = withDecoder(decoder, () =>
      dcmjs.data.DicomMessage.readFile(part10.file, { untilTag: part10.pixelData ? '7FE00010' : null, noCopy: true }));
    delete dicom.dict['7FE00010'];
    return { dicom, part10 };
  } catch (error) {
    if (error instanceof DeidentificationError) throw error;
    throw new DeidentificationError('unreadable',
      'This DICOM file is damaged or uses an encoding that cannot be read here, so it cannot be de-identified. Export it again from the imaging system.');
  }
}
