// Kysely prepares every query anew, and better-sqlite3 compiles a statement on each prepare(): a
// small upload runs about twenty queries, and compiling them took a tenth of the server's CPU in
// `npm run bench:files`. Statements are kept by their SQL text and reused (SQLite recompiles one
// itself should the schema change). Kysely runs one query at a time on its single SQLite
// connection, a stream holding it until it ends, so a kept statement is never in use twice at once.
import type SQLite from 'better-sqlite3';
import type { QueryResult, SqliteDatabase, SqliteStatement } from 'kysely';

/** SQL texts vary with the length of IN lists; beyond this many, the least recently used is dropped. */
const MAX_STATEMENTS = 500;

export interface CachedStatements extends SqliteDatabase {
  /** Whether a transaction is open on the connection (whoever opened it). */
  readonly inTransaction: boolean;
}

export function withStatementCache(database: SQLite.Database): CachedStatements {
  const statements = new Map<string, SqliteStatement>();
  return {
    prepare(sql: string): SqliteStatement {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = database.prepare(sql);
        if (statements.size >= MAX_STATEMENTS) statements.delete(statements.keys().next().value!);
      } else {
        statements.delete(sql);
      }
      statements.set(sql, statement);
      return statement;
    },
    get inTransaction() {
      return database.inTransaction;
    },
    close(): void {
      statements.clear();
      database.close();
    },
  };
}

/**
 * Runs compiled statements on the SQLite connection itself, past Kysely's executor: a statement
 * through Kysely cost about twice what SQLite took to run it (its connection provider, mutex and
 * result plumbing, ~10 µs a statement, and the garbage of the promises around them), and a single
 * upload runs about twenty (docs/performance.md, "SQLite statements: built once, planned once, run
 * directly").
 */
export class DirectStatements {
  constructor(private readonly statements: CachedStatements) {}

  /**
   * The statement's result, or undefined when it must wait for Kysely's connection: `inOwnTransaction`
   * says the caller runs inside a transaction it holds (it owns the connection); otherwise it may run
   * only while no transaction is open, as Kysely would run it once the connection is free. A
   * transaction of someone else's must never see, nor take in, a statement that is not its own.
   */
  run<Row>(sql: string, parameters: readonly unknown[], inOwnTransaction: boolean): QueryResult<Row> | undefined {
    if (!inOwnTransaction && this.statements.inTransaction) return undefined;
    const statement = this.statements.prepare(sql);
    // The same answers Kysely's SqliteConnection.executeQuery gives.
    if (statement.reader) return { rows: statement.all(parameters) as Row[] };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return { insertId: BigInt(lastInsertRowid), numAffectedRows: BigInt(changes), rows: [] };
  }
}

const direct = new WeakMap<object, DirectStatements>();

/** Called once by openDatabase for a SQLite database: its prepared queries may run directly. */
export function runDirectlyOn(db: object, statements: CachedStatements): void {
  direct.set(db, new DirectStatements(statements));
}

/** The direct runner of `db` (its SQLite connection), or undefined (PostgreSQL, or a transaction object). */
export function directStatementsOf(db: object): DirectStatements | undefined {
  return direct.get(db);
}
