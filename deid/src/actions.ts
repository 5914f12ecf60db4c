// Resolves Table E.1-1 into one action per attribute for a policy.
//
// Compound actions: the engine cannot know each attribute's Type in each IOD, so it takes the one
// choice that is permissible whatever the Type and still carries no identity: X/Z → Z, X/D → D,
// X/Z/D → D, Z/D → D, X/Z/U* → keep the sequence and replace the UIDs in it (U*).
// Options: an option's K keeps the attribute; its C cleans it. When several chosen options name
// one attribute, C (the more conservative) wins over K. Cleaning under Retain Longitudinal Temporal
// Information with Modified Dates shifts dates, times and date-times; any other C (free text, AE
// titles, codes) cannot be cleaned by a program with certainty, so the basic action is taken.
import { OPTION_INFO, type Option } from './options.js';
import { TABLE_E1_1 } from './table-e1-1.js';
import type { BasicAction, TableRow } from './table-row.js';

/** X remove, Z zero length, D dummy, K keep (sequences are still walked), U new UID, S shift dates. */
export type Act = 'X' | 'Z' | 'D' | 'K' | 'U' | 'S';

export interface Resolved {
  act: Act;
  /** The action came from an option's C (counted as cleaned rather than removed or replaced). */
  cleaned: boolean;
}

const DATE_VRS = new Set(['DA', 'DT', 'TM']);

const COMPOUND: Record<BasicAction, Act> = {
  D: 'D', Z: 'Z', X: 'X', K: 'K', C: 'X', U: 'U', 'Z/D': 'D', 'X/Z': 'Z', 'X/D': 'D', 'X/Z/D': 'D', 'X/Z/U*': 'K',
};

export function resolveRow(row: TableRow, options: readonly Option[]): Resolved {
  const [, , vr, basic, columns] = row;
  const base = COMPOUND[basic];
  const said = options.map((o) => ({ option: o, act: columns[OPTION_INFO[o].column] })).filter((s) => s.act);
  const clean = said.find((s) => s.act === 'C');
  if (clean) return { act: clean.option === 'retainLongitudinalModifiedDates' && DATE_VRS.has(vr) ? 'S' : base, cleaned: true };
  if (said.length > 0) return { act: 'K', cleaned: false };
  return { act: base, cleaned: false };
}

export interface ActionTable {
  /** Tag as 8 upper-case hex digits; undefined: not in the table (kept, sequences walked). */
  lookup(tag: string): Resolved | undefined;
}

export function actionTable(options: readonly Option[]): ActionTable {
  const exact = new Map<string, Resolved>();
  const patterns: { mask: number; value: number; resolved: Resolved }[] = [];
  for (const row of TABLE_E1_1) {
    const resolved = resolveRow(row, options);
    if (!row[0].includes('X')) { exact.set(row[0], resolved); continue; }
    patterns.push({
      mask: Number.parseInt(row[0].replace(/[0-9A-F]/g, 'F').replace(/X/g, '0'), 16),
      value: Number.parseInt(row[0].replace(/X/g, '0'), 16),
      resolved,
    });
  }
  return {
    lookup(tag) {
      const hit = exact.get(tag);
      if (hit || (tag[0] !== '5' && tag[0] !== '6')) return hit;
      const n = Number.parseInt(tag, 16);
      return patterns.find((p) => ((n & p.mask) >>> 0) === p.value)?.resolved;
    },
  };
}
