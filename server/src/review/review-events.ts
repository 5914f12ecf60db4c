// What the review room announces; who reacts is wired in services.ts (events/events.ts).

export interface ReviewEvents {
  /** A reviewer's decision on a file was committed (and audited): notifications may follow. */
  'file.reviewed': [fileId: number, companyId: number, decision: 'accepted' | 'rejected'];
}
