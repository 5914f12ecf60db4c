// @tus/server's Locker across API nodes, on PostgreSQL advisory locks (TUS_STORE=shared). Each
// node keeps one dedicated connection: it holds the session-level advisory lock of every upload a
// request of this node is working on, and LISTENs for other nodes' requests to release one. A
// request on another node that wants a held upload sends NOTIFY (tus's "request release": the
// holder stops reading its body, stores what arrived and unlocks) and then tries again until it
// gets the lock or its time runs out. Within the node, requests for the same upload take turns
// in memory first, since a session's advisory locks do not exclude each other.
//
// A node that dies loses its connection, and PostgreSQL releases the locks with it at once (the
// kernel closes the socket of a killed process; a vanished machine is noticed by TCP keepalive).
// Nothing a dead node's request wrote counts unless it was complete: chunks are counted after they
// are stored (tus-shared-store.ts). If this connection breaks while the node lives, its requests
// are asked to release, since their locks are gone; the next lock opens a new connection.
import { createHash } from 'node:crypto';
import { ERRORS, type Lock, type Locker, type RequestRelease } from '@tus/utils';
import pg from 'pg';

const CHANNEL = 'portal_tus_release';
const RETRY_MS = 50;
/** How often a waiting request repeats its release request (the holder may not have been listening yet). */
const RENOTIFY_MS = 1000;

interface Held {
  requestRelease: RequestRelease;
  /** The advisory lock is taken; until then the entry only keeps this node's other requests out. */
  acquired: boolean;
}

export class PgAdvisoryLocker implements Locker {
  readonly #url: string;
  readonly #timeoutMs: number;
  readonly #held = new Map<string, Held>();
  #connection: Promise<pg.Client> | undefined;
  #closed = false;

  constructor(opts: { databaseUrl: string; acquireTimeoutMs?: number }) {
    this.#url = opts.databaseUrl;
    this.#timeoutMs = opts.acquireTimeoutMs ?? 30_000;
  }

  newLock(id: string): Lock {
    // The entry this lock took: unlocking never releases another request's hold on the same upload.
    let mine: Held | undefined;
    return {
      lock: async (signal, requestRelease) => {
        mine = await this.#lock(id, signal, requestRelease);
      },
      unlock: () => {
        const entry = mine;
        mine = undefined;
        return this.#unlock(id, entry);
      },
    };
  }

  /** Ends the connection; locks still held go with it. */
  async close(): Promise<void> {
    this.#closed = true;
    const connection = this.#connection;
    this.#connection = undefined;
    if (connection) await (await connection.catch(() => undefined))?.end().catch(() => undefined);
  }

  async #lock(id: string, signal: AbortSignal, requestRelease: RequestRelease): Promise<Held> {
    const deadline = Date.now() + this.#timeoutMs;
    let notifiedAt = 0;
    for (;;) {
      // tus answers its own error objects (status and body), not Error instances.
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      if (signal.aborted || Date.now() > deadline || this.#closed) throw ERRORS.ERR_LOCK_TIMEOUT;
      const local = this.#held.get(id);
      if (local) {
        if (local.acquired) await local.requestRelease();
      } else {
        const entry: Held = { requestRelease, acquired: false };
        this.#held.set(id, entry);
        let taken = false;
        try {
          const client = await this.#client();
          const result = await client.query<{ taken: boolean }>('select pg_try_advisory_lock($1::bigint) as taken', [lockKey(id)]);
          taken = result.rows[0]?.taken === true;
        } finally {
          if (!taken) this.#held.delete(id);
        }
        if (taken) {
          entry.acquired = true;
          return entry;
        }
        if (Date.now() - notifiedAt >= RENOTIFY_MS) {
          notifiedAt = Date.now();
          await (await this.#client()).query('select pg_notify($1, $2)', [CHANNEL, id]);
        }
      }
      await delay(RETRY_MS, signal);
    }
  }

  async #unlock(id: string, entry: Held | undefined): Promise<void> {
    if (!entry?.acquired || this.#held.get(id) !== entry) throw new Error('Releasing an unlocked lock!');
    try {
      const connection = this.#connection;
      // A broken connection already released everything it held.
      if (connection) await (await connection).query('select pg_advisory_unlock($1::bigint)', [lockKey(id)]).catch(() => undefined);
    } finally {
      this.#held.delete(id);
    }
  }

  #client(): Promise<pg.Client> {
    this.#connection ??= this.#connect();
    return this.#connection;
  }

  #connect(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.#url, keepAlive: true });
    const lost = () => {
      if (this.#connection === current) this.#connection = undefined;
      // Every advisory lock of this node went with the connection: let their requests stop.
      for (const held of this.#held.values()) if (held.acquired) void held.requestRelease();
    };
    const current = (async () => {
      await client.connect();
      await client.query(`listen ${CHANNEL}`);
      return client;
    })();
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (message) => {
      const held = message.payload === undefined ? undefined : this.#held.get(message.payload);
      if (held?.acquired) void held.requestRelease();
    });
    current.catch(() => {
      if (this.#connection === current) this.#connection = undefined;
    });
    return current;
  }
}

/** A signed 64-bit key from the upload id (random hex): collisions would only make two uploads take turns. */
function lockKey(id: string): string {
  const digest = createHash('sha256').update(`tus:${id}`).digest();
  return digest.readBigInt64BE(0).toString();
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
