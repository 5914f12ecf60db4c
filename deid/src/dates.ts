// Retain Longitudinal Temporal Information with Modified Dates: every date of one patient moves
// back by the same number of whole days, so intervals and times of day are kept.
const DAY = 86_400_000;

/** YYYYMMDD, possibly shortened (YYYY, YYYYMM) in a DT; anything unparseable becomes undefined. */
function shiftDatePart(date: string, days: number): string | undefined {
  if (!/^\d{4}(\d{2}(\d{2})?)?$/.test(date)) return undefined;
  const y = Number(date.slice(0, 4));
  const m = date.length >= 6 ? Number(date.slice(4, 6)) : 1;
  const d = date.length >= 8 ? Number(date.slice(6, 8)) : 1;
  const t = Date.UTC(y, m - 1, d);
  if (Number.isNaN(t) || new Date(t).getUTCDate() !== d) return undefined;
  const shifted = new Date(t - days * DAY);
  const full = `${String(shifted.getUTCFullYear()).padStart(4, '0')}${String(shifted.getUTCMonth() + 1).padStart(2, '0')}${String(shifted.getUTCDate()).padStart(2, '0')}`;
  return full.slice(0, date.length);
}

/** Shifts one DA or DT value (ranges "A-B" too); undefined when it is not a date. */
export function shiftValue(vr: string, value: string, days: number): string | undefined {
  const v = value.trim();
  if (v === '') return v;
  if (vr === 'DA') {
    const parts = v.split('-').map((p) => (p === '' ? '' : shiftDatePart(p, days)));
    return parts.some((p) => p === undefined) ? undefined : parts.join('-');
  }
  const match = /^(\d{4,8})(.*)$/.exec(v);
  if (!match) return undefined;
  const date = shiftDatePart(match[1]!, days);
  return date === undefined ? undefined : date + match[2]!;
}
