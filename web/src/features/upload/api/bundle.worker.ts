// Packs a folder's bundles off the page's thread (issue 36 item 5): the tar headers of 400 files
// and a Blob of 800 parts held the page for 0.2–0.4 s per bundle, four bundles at a time.
import { packParts, type PartsMember } from './bundle';

/** A bundle's members come in parts (the page hands them over a slice at a time); `last` packs them. */
export interface PackRequest {
  id: number;
  members: PartsMember[];
  last: boolean;
}
export type PackAnswer = { id: number; file: File } | { id: number; error: string };

const arriving = new Map<number, PartsMember[]>();

self.onmessage = (event: MessageEvent<PackRequest>) => {
  const { id, members, last } = event.data;
  const all = [...(arriving.get(id) ?? []), ...members];
  if (!last) {
    arriving.set(id, all);
    return;
  }
  arriving.delete(id);
  try {
    self.postMessage({ id, file: packParts(all) } satisfies PackAnswer);
  } catch (error) {
    self.postMessage({ id, error: error instanceof Error ? error.message : String(error) } satisfies PackAnswer);
  }
};
