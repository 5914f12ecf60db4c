// Driven by Table E.1-1 itself: every attribute the table lists (tags without ranges) is planted
// at the top level and two sequences deep, and the engine's action is read back for each option.
import type { Dict, Element } from 'dcmjs';
import { describe, expect, it } from 'vitest';
import { deidentify, OPTIONS, OPTION_INFO, replacementUid, type Option } from '../src/index.js';
import { TABLE_E1_1 } from '../src/table-e1-1.js';
import type { TableRow } from '../src/table-row.js';
import { KEY, part10, read } from './helpers.js';

/** Attributes the engine writes itself or that are file meta; asserted elsewhere. */
const OWN = new Set(['00100010', '00100020', '00120062', '00120063', '00120064', '00080018']);
const ROWS = TABLE_E1_1.filter(([tag, , vr]) => !tag.includes('X') && !tag.startsWith('0000') && !tag.startsWith('0002') && vr !== '' && !OWN.has(tag));
// A place two sequences deep that the table does not name: Shared Functional Groups > Plane Orientation.
const OUTER = '52009229';
const INNER = '00209116';

function planted(row: TableRow, n: number): Element {
  const vr = row[2].split('|')[0]!;
  switch (vr) {
    case 'PN': return { vr, Value: [{ Alphabetic: `Planted^Person${n}` }] };
    case 'DA': return { vr, Value: ['20200315'] };
    case 'TM': return { vr, Value: ['101010'] };
    case 'DT': return { vr, Value: ['20200315101010'] };
    case 'UI': return { vr, Value: [`1.2.826.0.1.3680043.8.498.77.${n}`] };
    case 'AS': return { vr, Value: ['042Y'] };
    case 'DS': case 'IS': case 'US': return { vr, Value: [7] };
    case 'OB': case 'UN': return { vr, Value: [new Uint8Array([1, 2, 3, 4]).buffer] };
    case 'SQ': return { vr, Value: [{ '00080100': { vr: 'SH', Value: [`PLANTED${n}`] } }] };
    case 'UR': return { vr, Value: ['http://planted.example/'] };
    default: return { vr, Value: [`PLANTED${n}`] };
  }
}

function dataset(): Dict {
  const plant = (): Dict => Object.fromEntries(ROWS.map((row, i) => [row[0], planted(row, i)]));
  const privates = (): Dict => ({ '00090010': { vr: 'LO', Value: ['PLANTED CREATOR'] }, '00091001': { vr: 'LO', Value: ['PLANTED PRIVATE'] } });
  return {
    '00080016': { vr: 'UI', Value: ['1.2.840.10008.5.1.4.1.1.7'] },
    '00080018': { vr: 'UI', Value: ['1.2.826.0.1.3680043.8.498.1'] },
    '00100020': { vr: 'LO', Value: ['PLANTED-ID'] },
    ...plant(),
    ...privates(),
    [OUTER]: { vr: 'SQ', Value: [{ ...privates(), [INNER]: { vr: 'SQ', Value: [{ ...plant(), ...privates() }] } }] },
  };
}

/** What PS3.15 E.1-1 asks of one attribute, with the engine's documented choices (docs/deidentification.md). */
function expectedAction(row: TableRow, options: readonly Option[]): 'X' | 'Z' | 'D' | 'K' | 'U' | 'S' {
  const [, , vr, basic, columns] = row;
  const said = options.filter((o) => columns[OPTION_INFO[o].column]);
  if (said.some((o) => columns[OPTION_INFO[o].column] === 'C')) {
    if (said.some((o) => o === 'retainLongitudinalModifiedDates' && columns.rtnLongModifDatesOpt === 'C') && ['DA', 'DT', 'TM'].includes(vr)) return 'S';
  } else if (said.length) return 'K';
  const base = ({ 'X/Z': 'Z', 'X/D': 'D', 'X/Z/D': 'D', 'Z/D': 'D', 'X/Z/U*': 'K', C: 'X' } as const)[basic as string] ?? basic;
  if (base === 'D' && vr === 'UI') return 'U';
  return base as 'X' | 'Z' | 'D' | 'K' | 'U';
}

function check(row: TableRow, i: number, act: string, item: Dict, where: string): void {
  const [tag, keyword] = row;
  const got = item[tag];
  const original = planted(row, i).Value![0];
  const label = `${keyword} (${tag}) ${where}: ${act}`;
  const value = got?.Value ?? [];
  switch (act) {
    case 'X': expect(got, label).toBeUndefined(); break;
    case 'Z':
      expect(got, label).toBeDefined();
      expect(value.filter((v) => v !== '' && !(v instanceof ArrayBuffer && v.byteLength === 0)), label).toEqual([]);
      break;
    case 'D':
      expect(got, label).toBeDefined();
      expect(JSON.stringify(value), label).not.toContain('PLANTED');
      expect(JSON.stringify(value), label).not.toContain('Planted');
      if (row[2] !== 'SQ' && !['OB', 'OB|OW', 'UN', 'UR'].includes(row[2])) expect(value.length, label).toBe(1);
      break;
    case 'U': expect(value, label).toEqual([replacementUid(String(original), KEY)]); break;
    case 'K':
      if (row[2] === 'SQ') expect((value[0] as Dict | undefined)?.['00080100']?.Value, label).toEqual([`PLANTED${i}`]);
      else if (!['OB', 'OB|OW', 'UN'].includes(row[2])) expect(JSON.stringify(value), label).toBe(JSON.stringify(planted(row, i).Value));
      break;
    case 'S':
      if (row[2] === 'TM') expect(value, label).toEqual(['101010']);
      else { expect(String(value[0]), label).toMatch(/^\d{8}/); expect(String(value[0]), label).not.toMatch(/^20200315/); }
      break;
  }
}

const POLICIES: Option[][] = [[], ...OPTIONS.map((o) => [o]), [...OPTIONS]];

describe('Table E.1-1, attribute by attribute', () => {
  it(`covers the table's ${ROWS.length} single-tag attributes with a known VR`, () => {
    expect(ROWS.length).toBeGreaterThan(590);
  });

  for (const options of POLICIES) {
    it(`takes the table's action for every attribute at the top level and two sequences deep (${options.join(', ') || 'basic profile'})`, () => {
      const { bytes, report } = deidentify(part10(dataset()), { profile: 'basic', options }, KEY);
      const { dict } = read(bytes);
      const nested = (dict[OUTER]!.Value![0] as Dict)[INNER]!.Value![0] as Dict;
      ROWS.forEach((row, i) => {
        const act = expectedAction(row, options);
        check(row, i, act, dict, 'top level');
        check(row, i, act, nested, 'nested');
      });
      const anyPrivate = (item: Dict): boolean => Object.entries(item).some(([tag, e]) =>
        Number.parseInt(tag.slice(0, 4), 16) % 2 === 1 || (e.vr === 'SQ' && (e.Value as Dict[]).some(anyPrivate)));
      expect(anyPrivate(dict)).toBe(false);
      expect(report.counts.privateRemoved).toBe(6);
      expect(dict['00100020']!.Value).toEqual([report.patientPseudonym]);
    });
  }
});
