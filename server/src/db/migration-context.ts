// What a migration is handed, apart from migrate.ts, which imports every migration: a migration
// importing it back would make the two a cycle.
import type { Dialect } from './database.js';

export interface MigrationContext {
  dialect: Dialect;
  id: 'serial' | 'integer';
}
