// The queue's kind for thumbnails (its definition only: queueing imports this, never the code that
// runs it, in thumbnails.job.ts).
import { z } from 'zod';
import { uploadSubject } from '../files/index.js';
import { jobType } from '../jobs/index.js';

/**
 * The thumbnails of every series of one processed upload or delivery, queued once its processing is
 * committed. Its subject is the file's: deleting the file cancels it, and the purge waits for it.
 */
export const RENDER_THUMBNAILS = jobType(
  'render-thumbnails',
  z.object({ fileId: z.number().int().positive(), companyId: z.number().int().positive() }),
  (p) => uploadSubject(p.fileId),
  (p) => `companies/${p.companyId}`,
);
