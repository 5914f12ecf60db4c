// Identity burned into the pixels is beyond a header engine (PS3.15 E.1.1 Clean Pixel Data): an
// instance is flagged for a person's review when it says so or when its kind often carries it.
import type { Dict } from 'dcmjs';
import { text } from './method.js';

const OFTEN_BURNED_IN: Record<string, string> = {
  US: 'an ultrasound image', SC: 'a secondary capture', XA: 'an X-ray angiography image', ES: 'an endoscopy image', OT: 'an image of modality "other"',
};

export function reviewReason(dict: Dict, sopClassUid: string): string | undefined {
  const burnedIn = text(dict, '00280301').toUpperCase();
  if (burnedIn === 'YES') return 'The file says text is burned into its pixels (Burned In Annotation: YES); it may show the patient\'s identity. A person should look at the images.';
  if (burnedIn !== '') return undefined;
  const modality = text(dict, '00080060').toUpperCase();
  const kind = OFTEN_BURNED_IN[modality]
    ?? (sopClassUid.startsWith('1.2.840.10008.5.1.4.1.1.7') ? 'a secondary capture' : undefined)
    ?? (sopClassUid.startsWith('1.2.840.10008.5.1.4.1.1.104.') ? 'an encapsulated document' : undefined);
  return kind && `This is ${kind} and does not say whether text is burned into its pixels; such images often show the patient's identity. A person should look at the images.`;
}
