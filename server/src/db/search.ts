// Text search the same way on both engines: a substring, letters compared without case, and the
// LIKE wildcards a person types ('%', '_') and the escape character matched as themselves.
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';

export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * `value` contains `text`. lower() on both sides, so each engine folds case by the same rule
 * (PostgreSQL every letter, SQLite ASCII letters only).
 */
export function containsText(value: Expression<unknown>, text: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`lower(${value}) like lower(${likeContains(text)}) escape '\\'`;
}
