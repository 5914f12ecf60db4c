export type RejectionCode = 'not-dicom' | 'unreadable' | 'unsupported-character-set' | 'dicomdir';

/**
 * A file the engine does not de-identify. `message` is meant for the person who sent it; the file
 * must not be sent or kept (a DICOMDIR is left out on purpose: it names the patient, and the images
 * it indexes travel on their own).
 */
export class DeidentificationError extends Error {
  constructor(readonly code: RejectionCode, message: string) {
    super(message);
    this.name = 'DeidentificationError';
  }
}
