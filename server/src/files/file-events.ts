// What the catalogue announces; who reacts is wired in services.ts (events/events.ts).

export interface FileEvents {
  /** A file or a completed delivery was deleted (its audit row written first): its links stop, its purge is due. */
  'file.removed': [fileId: number];
  /** A file's processing marked it 'ready' (its entries recorded and committed): derived work may start. */
  'file.processed': [fileId: number, companyId: number];
  /** A file's processing ended 'failed' (its reason recorded and committed): its owners may be told. */
  'file.failed': [fileId: number, companyId: number];
}
