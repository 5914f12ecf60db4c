// A QIDO-RS query string read into a search (PS3.18 8.3.4): matching keys by keyword or tag,
// includefield, limit, offset. Whatever is not understood is refused in words, never ignored.
import { badRequest } from '../errors/app-error.js';
import { ATTRIBUTES, attributeNamed, available, defaults, type Attribute, type Level } from './qido-attributes.js';

export type Match =
  | { attr: Attribute; kind: 'uids'; values: string[] }
  | { attr: Attribute; kind: 'exact'; value: string }
  | { attr: Attribute; kind: 'wildcard'; pattern: string }
  | { attr: Attribute; kind: 'range'; from: string | null; to: string | null }
  | { attr: Attribute; kind: 'integer'; value: number }
  | { attr: Attribute; kind: 'modalities'; values: string[] };

export interface Search {
  level: Level;
  matches: Match[];
  fields: Attribute[];
  limit: number;
  offset: number;
}

/** The most a search answers at once; a client pages on with offset. */
export const QIDO_LIMIT_MAX = 1000;

const list = (value: string) =>
  value
    .split(/[,\\]/)
    .map((v) => v.trim())
    .filter((v) => v !== '');

function count(name: string, value: string): number {
  if (!/^\d{1,9}$/.test(value)) throw badRequest(`${name} must be a whole number of 0 or more; '${value}' is not`);
  return Number(value);
}

function matchOf(attr: Attribute, value: string): Match {
  const refuse = (what: string) => badRequest(`${attr.keyword}: ${what}; '${value}' cannot be matched`);
  switch (attr.matching) {
    case 'uid': {
      const values = list(value);
      if (values.length === 0 || values.some((v) => !/^[0-9.]{1,64}$/.test(v))) throw refuse('a UID is digits and dots, several separated by commas');
      return { attr, kind: 'uids', values };
    }
    case 'modalities':
      if (list(value).length === 0) throw refuse('give one or more modalities, separated by commas');
      return { attr, kind: 'modalities', values: list(value) };
    case 'integer':
      if (!/^[+-]?\d{1,9}$/.test(value)) throw refuse('a whole number is matched exactly');
      return { attr, kind: 'integer', value: Number(value) };
    case 'date':
    case 'time': {
      const shape = attr.matching === 'date' ? /^\d{8}$/ : /^\d{2}(\d{2}(\d{2}(\.\d{1,6})?)?)?$/;
      const what = attr.matching === 'date' ? 'a date is YYYYMMDD, a range YYYYMMDD-YYYYMMDD (either end may be left open)' : 'a time is HHMMSS, a range HHMMSS-HHMMSS';
      const [from, to, ...rest] = value.split('-');
      const ok = (v: string | undefined) => v === undefined || v === '' || shape.test(v);
      if (rest.length > 0 || !ok(from) || !ok(to) || (from === '' && (to === undefined || to === ''))) throw refuse(what);
      if (to === undefined) return { attr, kind: 'exact', value: from! };
      return { attr, kind: 'range', from: from || null, to: to || null };
    }
    case 'text':
      return /[*?]/.test(value) ? { attr, kind: 'wildcard', pattern: value } : { attr, kind: 'exact', value };
    case 'none':
      throw badRequest(`${attr.keyword} is answered but cannot be matched: leave it out of the query`);
  }
}

function includeFields(level: Level, values: string[]): Attribute[] {
  const fields = new Set(defaults(level));
  for (const name of values.flatMap(list)) {
    if (name.toLowerCase() === 'all') {
      for (const attr of ATTRIBUTES) if (available(attr, level)) fields.add(attr);
      continue;
    }
    const attr = attributeNamed(name);
    // A tag this portal does not index is not an error: it is absent from the answer, as PS3.18
    // lets a server do. A keyword it does not know is most likely misspelt: said so.
    if (attr === undefined) {
      if (/^[0-9a-f]{8}$/i.test(name)) continue;
      throw badRequest(`includefield: '${name}' is not an attribute this server answers; name attributes by keyword (PatientName) or tag (00100010)`);
    }
    if (available(attr, level)) fields.add(attr);
  }
  return ATTRIBUTES.filter((attr) => fields.has(attr));
}

/** The search a query string asks for at `level`; `path` holds the UIDs of the path, matched as keys. */
export function readSearch(level: Level, query: Record<string, string | string[] | undefined>, path: Match[] = []): Search {
  const matches = [...path];
  const includes: string[] = [];
  let limit = QIDO_LIMIT_MAX;
  let offset = 0;
  for (const [key, raw] of Object.entries(query)) {
    if (raw === undefined) continue;
    const values = Array.isArray(raw) ? raw : [raw];
    const lower = key.toLowerCase();
    if (lower === 'includefield') includes.push(...values);
    else if (lower === 'limit') limit = Math.min(QIDO_LIMIT_MAX, count('limit', values.at(-1)!));
    else if (lower === 'offset') offset = count('offset', values.at(-1)!);
    else if (lower === 'fuzzymatching') continue;
    else {
      const attr = attributeNamed(key);
      if (attr === undefined) throw badRequest(`'${key}' is not an attribute this server can match; the attributes are listed in the API documentation (DICOMweb)`);
      if (!available(attr, level)) throw badRequest(`${attr.keyword} cannot be matched in a search for ${level === 'study' ? 'studies' : `${level} level`}`);
      if (values.length > 1) throw badRequest(`${attr.keyword} is given twice; give it once`);
      if (values[0] === '') continue;
      matches.push(matchOf(attr, values[0]!));
    }
  }
  return { level, matches, fields: includeFields(level, includes), limit, offset };
}
