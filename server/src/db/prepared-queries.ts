// Queries on hot paths, built by Kysely once and then run with new values: a folder's per-file
// queries (a folder of 2,000 small files runs each 2,000 times) and the jobs' claim (two or three
// times per upload). Building a query (its operation tree, then the SQL text) cost more than
// SQLite took to run it (docs/performance.md, "SQLite statements: built once, planned once, run
// directly").
import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { Database } from './schema.js';
import { directStatementsOf, type DirectStatements } from './statement-cache.js';

/** A query as `sql` or a query builder makes it (a builder's compile takes no argument). */
export interface Compilable<Row> {
  compile(executorProvider: Kysely<Database>): CompiledQuery<Row>;
}

/** Stands for the value at its index while a query is built; never a value a caller could send. */
const MARK = '\u0000portal-value-';

export class PreparedQueries {
  readonly #compiled = new Map<string, CompiledQuery<unknown>>();
  /** SQLite's connection, run past Kysely's executor (statement-cache.ts); undefined on PostgreSQL. */
  readonly #direct: DirectStatements | undefined;

  constructor(private readonly db: Kysely<Database>) {
    this.#direct = directStatementsOf(db);
  }

  /**
   * Runs the query `key` names with `values`. The first time, `build` writes it with `sql`, given
   * one placeholder per value in order; `key` must name one SQL text (include anything that changes
   * it, such as the length of an `in` list). `on` runs it inside a transaction of this database.
   */
  async rows<Row>(key: string, values: readonly unknown[], build: (v: readonly string[]) => Compilable<Row>, on?: Kysely<Database>): Promise<Row[]> {
    return (await this.#execute<Row>(key, values, build, on)).rows;
  }

  /** As `rows`, for a statement answering no rows: how many rows it changed. */
  async run(key: string, values: readonly unknown[], build: (v: readonly string[]) => Compilable<unknown>, on?: Kysely<Database>): Promise<number> {
    return Number((await this.#execute(key, values, build, on)).numAffectedRows ?? 0);
  }

  async #execute<Row>(key: string, values: readonly unknown[], build: (v: readonly string[]) => Compilable<Row>, on: Kysely<Database> = this.db): Promise<QueryResult<Row>> {
    let compiled = this.#compiled.get(key) as CompiledQuery<Row> | undefined;
    if (compiled === undefined) {
      compiled = build(values.map((_, i) => `${MARK}${i}`)).compile(this.db);
      this.#compiled.set(key, compiled);
    }
    const parameters = compiled.parameters.map((p) => (typeof p === 'string' && p.startsWith(MARK) ? values[Number(p.slice(MARK.length))] : p));
    const result = this.#direct?.run<Row>(compiled.sql, parameters, on.isTransaction);
    return result ?? on.executeQuery<Row>({ ...compiled, parameters });
  }
}
