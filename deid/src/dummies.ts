// Values for D (a dummy of the attribute's VR). Text says plainly that it was replaced; dates are
// the first of January 1900, so a dummy is never mistaken for a real date in the study's era.
const TEXT = 'DEIDENTIFIED';

export function dummyValue(vr: string): unknown[] {
  switch (vr) {
    case 'PN': return [{ Alphabetic: TEXT }];
    case 'AE': case 'CS': case 'LO': case 'LT': case 'SH': case 'ST': case 'UC': case 'UT': return [TEXT];
    case 'AS': return ['000D'];
    case 'DA': return ['19000101'];
    case 'DT': return ['19000101000000'];
    case 'TM': return ['000000'];
    case 'DS': case 'IS': case 'FL': case 'FD': case 'SL': case 'SS': case 'UL': case 'US': return [0];
    case 'SV': case 'UV': return [0n];
    // Binary and unknown values have no neutral dummy: they are emptied (Z), which carries nothing.
    default: return [];
  }
}
