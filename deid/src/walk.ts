// Applies the resolved table to every attribute of a dataset, at every depth of nested sequences.
import type { Dict, Element } from 'dcmjs';
import type { ActionTable } from './actions.js';
import { shiftValue } from './dates.js';
import { dummyValue } from './dummies.js';

export interface Counts {
  removed: number;
  replaced: number;
  shifted: number;
  cleaned: number;
  privateRemoved: number;
  uidsReplaced: number;
}

export interface WalkContext {
  table: ActionTable;
  counts: Counts;
  /** Maps one original UID to its replacement (memoised by the caller). */
  uid(original: string): string;
  /** The pseudonym for a PatientID value (or for the dataset's patient when the value is empty). */
  pseudonym(patientId: string | undefined): string;
  shiftDays: number;
  /** Set when a text value outside ASCII remains (the output must then declare UTF-8). */
  nonAscii: boolean;
}

const PATIENT_NAME = '00100010';
const PATIENT_ID = '00100020';
const TEXT_VRS = new Set(['AE', 'CS', 'LO', 'LT', 'SH', 'ST', 'UC', 'UT', 'UR', 'PN']);

export function walk(item: Dict, ctx: WalkContext): void {
  for (const tag of Object.keys(item)) {
    const element = item[tag]!;
    const group = Number.parseInt(tag.slice(0, 4), 16);
    // Private attributes (odd groups) go, creators included; Retain Safe Private keeps only a
    // listed safe set, and that list is empty.
    if (group % 2 === 1) { delete item[tag]; ctx.counts.privateRemoved++; continue; }
    // Group lengths would be wrong after any removal; padding after Pixel Data says nothing.
    if (tag.endsWith('0000') || tag === 'FFFCFFFC') { delete item[tag]; continue; }
    if (tag === PATIENT_ID) { setValue(element, [ctx.pseudonym(firstString(element))]); ctx.counts.replaced++; continue; }
    if (tag === PATIENT_NAME) {
      setValue(element, [{ Alphabetic: ctx.pseudonym(firstString(item[PATIENT_ID])) }]);
      ctx.counts.replaced++;
      continue;
    }
    const resolved = ctx.table.lookup(tag);
    if (!resolved) { keep(element, ctx); continue; }
    const counted = resolved.cleaned ? 'cleaned' : undefined;
    switch (resolved.act) {
      case 'X':
        delete item[tag];
        ctx.counts[counted ?? 'removed']++;
        break;
      case 'Z':
        setValue(element, []);
        ctx.counts[counted ?? 'replaced']++;
        break;
      case 'D':
        if (element.vr === 'UI') { replaceUids(element, ctx); break; }
        // A sequence's dummy is one empty item: its items could name a person in any attribute.
        setValue(element, element.vr === 'SQ' ? [{}] : dummyValue(element.vr));
        ctx.counts[counted ?? 'replaced']++;
        break;
      case 'U':
        if (element.vr === 'UI') replaceUids(element, ctx);
        else { setValue(element, []); ctx.counts.replaced++; }
        break;
      case 'S':
        shiftDates(element, ctx);
        break;
      case 'K':
        keep(element, ctx);
        break;
    }
  }
}

function keep(element: Element, ctx: WalkContext): void {
  if (element.vr === 'SQ') {
    for (const child of element.Value ?? []) if (child && typeof child === 'object') walk(child as Dict, ctx);
  } else if (!ctx.nonAscii && TEXT_VRS.has(element.vr)) {
    ctx.nonAscii = (element.Value ?? []).some((v) => /[\u0080-\uffff]/.test(typeof v === 'string' ? v : JSON.stringify(v)));
  }
}

function replaceUids(element: Element, ctx: WalkContext): void {
  const values = (element.Value ?? []).map((v) => (typeof v === 'string' && v.trim() !== '' ? ctx.uid(v) : v));
  setValue(element, values);
  ctx.counts.uidsReplaced += values.length;
}

function shiftDates(element: Element, ctx: WalkContext): void {
  if (element.vr === 'DA' || element.vr === 'DT') {
    const values = (element.Value ?? []).map((v) => (typeof v === 'string' ? shiftValue(element.vr, v, ctx.shiftDays) : undefined));
    // A value that is not a date cannot be shifted, so it is not kept either.
    setValue(element, values.every((v) => v !== undefined) ? values : []);
  }
  // A time of day (TM) is unchanged by a shift of whole days.
  ctx.counts.shifted++;
}

function setValue(element: Element, value: unknown[]): void {
  element.Value = value;
  delete element._rawValue;
}

function firstString(element: Element | undefined): string | undefined {
  const v = element?.Value?.[0];
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}
