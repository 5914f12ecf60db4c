// Which tus store and locker an API node uses (TUS_STORE, docs/configuration.md). The file store
// with tus's in-memory locker keeps everything on one node: right for the single-machine default.
// The shared store keeps an upload's offset in the database and its bytes in the Storage backend,
// and locks uploads across nodes with PostgreSQL advisory locks; on SQLite there is one node by
// definition, so tus's in-memory locker stays.
import path from 'node:path';
import type { Locker } from '@tus/utils';
import type { Config } from '../config/config.js';
import type { DatabaseHandle } from '../db/database.js';
import type { Storage } from '../storage/storage.js';
import { TusOffsetsRepository } from './tus-offsets.repository.js';
import { PgAdvisoryLocker } from './tus-pg-locker.js';
import { SharedTusStore } from './tus-shared-store.js';

export interface SharedTus {
  store: SharedTusStore;
  /** undefined: tus's own in-memory locker (SQLite: one node). */
  locker: Locker | undefined;
  close(): Promise<void>;
}

export function createSharedTus(
  handle: DatabaseHandle,
  storage: Storage,
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'resumable'>,
): SharedTus | undefined {
  if (config.resumable.store !== 'shared') return undefined;
  const store = new SharedTusStore({
    storage,
    offsets: new TusOffsetsRepository(handle.db),
    expiryMs: config.resumable.expiryMs,
    scratchDirectory: path.join(config.dataDir, 'tus'),
  });
  const locker = handle.dialect === 'postgres' && config.databaseUrl ? new PgAdvisoryLocker({ databaseUrl: config.databaseUrl }) : undefined;
  return { store, locker, close: () => locker?.close() ?? Promise.resolve() };
}
