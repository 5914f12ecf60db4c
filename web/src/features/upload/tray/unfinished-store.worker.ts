// Writes the unfinished uploads' records off the page's thread (issue 36 item 5; unfinished-store.ts).
import { deleteRecords, putRecords } from './unfinished-db';

export type WriteRequest = { id: number; op: 'put'; items: object[] } | { id: number; op: 'delete'; items: string[] };
export interface WriteAnswer {
  id: number;
}

self.onmessage = (event: MessageEvent<WriteRequest>) => {
  const request = event.data;
  const done = request.op === 'put' ? putRecords(request.items) : deleteRecords(request.items);
  void done.then(() => self.postMessage({ id: request.id } satisfies WriteAnswer));
};
