// PatientName is a DICOM PN value: up to three component groups split by '=' (alphabetic,
// ideographic, phonetic), each 'Family^Given^Middle^Prefix^Suffix' (PS3.5 §6.2). People read
// 'Doe, John' rather than 'Doe^John'.

function components(group: string): string[] {
  return group.split('^').map((part) => part.trim());
}

/** 'Doe^John^A^Dr^Jr' → 'Dr Doe, John A Jr'; family and given names kept in their order. */
function alphabetic(group: string): string {
  const [family = '', given = '', middle = '', prefix = '', suffix = ''] = components(group);
  const givenNames = [given, middle].filter(Boolean).join(' ');
  const core = family && givenNames ? `${family}, ${givenNames}` : family || givenNames;
  return [prefix, core, suffix].filter(Boolean).join(' ');
}

/** Ideographic and phonetic names are written family name first, without a comma: '山田 太郎'. */
function written(group: string): string {
  const [family = '', given = '', middle = '', prefix = '', suffix = ''] = components(group);
  return [prefix, family, given, middle, suffix].filter(Boolean).join(' ');
}

/**
 * The name for reading: the alphabetic form, with the ideographic one after it in parentheses
 * ('Yamada, Tarou (山田 太郎)'); the phonetic form only when there is nothing else. Null when the
 * value holds no name at all ('^^^^').
 */
export function formatPersonName(value: string | null): string | null {
  if (value === null) return null;
  const [alpha = '', ideographic = '', phonetic = ''] = value.split('=');
  const latin = alphabetic(alpha);
  const ideo = written(ideographic);
  const name = latin && ideo ? `${latin} (${ideo})` : latin || ideo || written(phonetic);
  return name === '' ? null : name;
}
