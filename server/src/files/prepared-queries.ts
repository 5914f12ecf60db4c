// Queries run once per file of a folder, built by Kysely once and then run with new values.
// Building a query (its operation tree, then the SQL text) cost more than SQLite took to run it,
// and a folder of 2,000 small files runs each of them 2,000 times (docs/performance.md, "Many
// small files"); the jobs' claim query is kept the same way (jobs.repository.ts).
import type { CompiledQuery, Kysely, QueryResult, RawBuilder } from 'kysely';
import type { Database } from '../db/schema.js';

/** Stands for the value at its index while a query is built; never a value a caller could send. */
const MARK = '\u0000portal-value-';

export class PreparedQueries {
  readonly #compiled = new Map<string, CompiledQuery<unknown>>();

  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Runs the query `key` names with `values`. The first time, `build` writes it with `sql`, given
   * one placeholder per value in order; `key` must name one SQL text (include anything that changes
   * it, such as the length of an `in` list). `on` runs it inside a transaction.
   */
  async rows<Row>(key: string, values: readonly unknown[], build: (v: readonly string[]) => RawBuilder<Row>, on?: Kysely<Database>): Promise<Row[]> {
    return (await this.#execute<Row>(key, values, build, on)).rows;
  }

  /** As `rows`, for a statement answering no rows: how many rows it changed. */
  async run(key: string, values: readonly unknown[], build: (v: readonly string[]) => RawBuilder<unknown>, on?: Kysely<Database>): Promise<number> {
    return Number((await this.#execute(key, values, build, on)).numAffectedRows ?? 0);
  }

  #execute<Row>(key: string, values: readonly unknown[], build: (v: readonly string[]) => RawBuilder<Row>, on: Kysely<Database> = this.db): Promise<QueryResult<Row>> {
    let compiled = this.#compiled.get(key) as CompiledQuery<Row> | undefined;
    if (compiled === undefined) {
      compiled = build(values.map((_, i) => `${MARK}${i}`)).compile(this.db);
      this.#compiled.set(key, compiled);
    }
    const parameters = compiled.parameters.map((p) => (typeof p === 'string' && p.startsWith(MARK) ? values[Number(p.slice(MARK.length))] : p));
    return on.executeQuery<Row>({ ...compiled, parameters });
  }
}
