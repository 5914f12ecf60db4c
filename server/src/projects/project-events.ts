// What projects/ announces; who reacts is wired in services.ts (events/events.ts).

export interface ProjectEvents {
  /** A project was deleted (its audit row written first): work about its contents stops, its files' purge is due. */
  'project.removed': [projectId: number];
}
