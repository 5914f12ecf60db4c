// What deliveries/ announces; who reacts is wired in services.ts (events/events.ts).
import type { ProjectFileRow } from '../db/schema.js';

export interface DeliveryEvents {
  /** A delivery was completed: it is now a file row of kind folder, whose job may start at once. */
  'delivery.completed': [folder: ProjectFileRow];
}
