// Kysely prepares every query anew, and better-sqlite3 compiles a statement on each prepare(): a
// small upload runs about twenty queries, and compiling them took a tenth of the server's CPU in
// `npm run bench:files`. Statements are kept by their SQL text and reused (SQLite recompiles one
// itself should the schema change). Kysely runs one query at a time on its single SQLite
// connection, a stream holding it until it ends, so a kept statement is never in use twice at once.
import type SQLite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** SQL texts vary with the length of IN lists; beyond this many, the least recently used is dropped. */
const MAX_STATEMENTS = 500;

export function withStatementCache(database: SQLite.Database): SqliteDatabase {
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
    close(): void {
      statements.clear();
      database.close();
    },
  };
}
