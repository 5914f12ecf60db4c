// Hashes picked files off the page's thread (issue 36, item 3): reading and digesting a folder's
// worth of files would otherwise hold the page.
import { sha256Hex } from './sha256';

export interface HashRequest {
  id: number;
  file: File;
}
export type HashAnswer = { id: number; sha256: string } | { id: number; sha256: null };

self.onmessage = (event: MessageEvent<HashRequest>) => {
  const { id, file } = event.data;
  sha256Hex(file).then(
    (sha256) => self.postMessage({ id, sha256 } satisfies HashAnswer),
    // A file that can no longer be read is simply not checked; sending it says what is wrong.
    () => self.postMessage({ id, sha256: null } satisfies HashAnswer),
  );
};
