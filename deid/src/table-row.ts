/** One action code of Table E.1-1 (basic profile column), compound ones included. */
export type BasicAction = 'D' | 'Z' | 'X' | 'K' | 'C' | 'U' | 'Z/D' | 'X/Z' | 'X/D' | 'X/Z/D' | 'X/Z/U*';

/** The table's option columns, named as in the extraction; only K (keep) and C (clean) appear in them. */
export type OptionColumn = 'rtnSafePrivOpt' | 'rtnUIDsOpt' | 'rtnDevIdOpt' | 'rtnInstIdOpt' | 'rtnPatCharsOpt'
  | 'rtnLongFullDatesOpt' | 'rtnLongModifDatesOpt' | 'cleanDescOpt' | 'cleanStructContOpt' | 'cleanGraphOpt';

/** [tag as 8 hex digits, X for "any digit"; keyword; VR ('' if unknown); basic action; option columns]. */
export type TableRow = readonly [string, string, string, BasicAction, Partial<Record<OptionColumn, 'K' | 'C'>>];
