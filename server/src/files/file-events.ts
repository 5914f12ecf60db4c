// What the catalogue announces; who reacts is wired in services.ts (events/events.ts).

export interface FileEvents {
  /** A file or a completed delivery was deleted (its audit row written first): its links stop, its purge is due. */
  'file.removed': [fileId: number];
}
