import { UploadFailure, type RunningUpload, type UploadJob } from './tus-upload';

/**
 * An upload that starts once its job is made (a bundle packed off the page, a file de-identified):
 * stopped before that, it never starts; a job that could not be made fails with its own reason
 * when it gave one in words (an UploadFailure), else as an upload that may be tried again.
 */
export function preparedUpload(job: Promise<UploadJob>, start: (job: UploadJob) => RunningUpload): RunningUpload {
  let stopped = false;
  let running: RunningUpload | undefined;
  const result = job.then(
    (made) => {
      if (stopped) throw new UploadFailure({ message: 'Cancelled', details: 'The upload was stopped.' }, true);
      running = start(made);
      return running.result;
    },
    (error: unknown) => {
      if (error instanceof UploadFailure) throw error;
      throw new UploadFailure({ message: 'Unexpected Error', details: error instanceof Error ? error.message : String(error) }, true);
    },
  );
  return {
    result,
    cancel: async () => {
      stopped = true;
      await running?.cancel();
    },
    abandon: () => {
      stopped = true;
      running?.abandon();
    },
  };
}
