// Rows as both engines answer them: PostgreSQL's driver gives bigint columns as strings where
// SQLite gives numbers, so rows are compared by their values' text.
export type Row = Record<string, unknown>;

function text(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** The first column whose value differs, or null when the rows hold the same values. */
export function differingColumn(source: Row, target: Row): string | null {
  for (const column of new Set([...Object.keys(source), ...Object.keys(target)])) {
    if (text(source[column]) !== text(target[column])) return column;
  }
  return null;
}

export function keyText(row: Row, key: string): string {
  return text(row[key]) ?? '';
}
