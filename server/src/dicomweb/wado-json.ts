// An instance's header as DICOM JSON (PS3.18 F.2) for WADO-RS /metadata: every attribute before
// Pixel Data with its values, binary values (OB, OW, UN, …) and Pixel Data as a BulkDataURI
// (F.2.6) that the bulkdata route answers, never inline. Read from the stored header with
// dicom-parser; an implicit-VR file's VRs come from dcmjs's data dictionary.
import { createRequire } from 'node:module';
import dicomParser, { type DataSet, type Element } from 'dicom-parser';
import { decodeDicomText } from '../ingest/index.js';
import { personName, type DicomJsonElement, type DicomJsonObject } from './dicom-json.js';

// dcmjs's dictionary (its declarations in deid/ cover only what the engine uses): '(0028,0010)' → { vr: 'US' }.
const dictionary = (createRequire(import.meta.url)('dcmjs') as { data: { DicomMetaDictionary: { dictionary: Record<string, { vr: string } | undefined> } } }).data
  .DicomMetaDictionary.dictionary;

const BINARY = new Set(['OB', 'OD', 'OF', 'OL', 'OV', 'OW', 'UN']);
const CHARSET_TEXT = new Set(['SH', 'LO', 'UC', 'ST', 'LT', 'UT', 'PN']);
const SINGLE_VALUE = new Set(['ST', 'LT', 'UT', 'UR']);
const PIXEL_DATA = 'x7fe00010';

const upper = (tag: string) => tag.slice(1).toUpperCase();

/** The VR of an element: as written (explicit VR), else the dictionary's (implicit VR). */
function vrOf(element: Element): string {
  if (element.items !== undefined) return 'SQ';
  if (element.vr) return element.vr;
  const group = element.tag.slice(1, 5).toUpperCase();
  const number = element.tag.slice(5).toUpperCase();
  if (parseInt(group, 16) % 2 === 1) return parseInt(number, 16) >= 0x10 && parseInt(number, 16) <= 0xff ? 'LO' : 'UN';
  const known = dictionary[`(${group},${number})`] ?? dictionary[`(${group.slice(0, 2)}xx,${number})`];
  const vr = known?.vr ?? 'UN';
  // Ambiguous dictionary VRs: what an implicit-VR writer means by them in practice.
  if (vr === 'ox' || vr === 'OB or OW') return 'OW';
  if (vr === 'xs' || vr === 'US or SS') return 'US';
  if (vr === 'US or OW' || vr === 'US or SS or OW') return 'US';
  return vr.length === 2 ? vr : 'UN';
}

function numbers(dataSet: DataSet, element: Element, vr: string): number[] {
  const size = vr === 'US' || vr === 'SS' ? 2 : vr === 'FD' || vr === 'SV' || vr === 'UV' ? 8 : 4;
  const count = Math.floor(element.length / size);
  const values: number[] = [];
  const little = dataSet.byteArrayParser !== dicomParser.bigEndianByteArrayParser;
  const view = new DataView(dataSet.byteArray.buffer, dataSet.byteArray.byteOffset + element.dataOffset, count * size);
  for (let i = 0; i < count; i += 1) {
    const at = i * size;
    switch (vr) {
      case 'US':
        values.push(view.getUint16(at, little));
        break;
      case 'SS':
        values.push(view.getInt16(at, little));
        break;
      case 'UL':
        values.push(view.getUint32(at, little));
        break;
      case 'SL':
        values.push(view.getInt32(at, little));
        break;
      case 'FL':
        values.push(view.getFloat32(at, little));
        break;
      case 'FD':
        values.push(view.getFloat64(at, little));
        break;
      case 'SV':
        values.push(Number(view.getBigInt64(at, little)));
        break;
      case 'UV':
        values.push(Number(view.getBigUint64(at, little)));
        break;
    }
  }
  return values;
}

function tags(dataSet: DataSet, element: Element): string[] {
  const values: string[] = [];
  for (let i = 0; i + 4 <= element.length; i += 4) {
    const group = dataSet.uint16(element.tag, i / 2) ?? 0;
    const number = dataSet.uint16(element.tag, i / 2 + 1) ?? 0;
    values.push((group * 0x10000 + number).toString(16).toUpperCase().padStart(8, '0'));
  }
  return values;
}

function text(dataSet: DataSet, element: Element, vr: string, charsets: readonly string[]): unknown[] {
  const bytes = dataSet.byteArray.subarray(element.dataOffset, element.dataOffset + element.length);
  const written = CHARSET_TEXT.has(vr) ? decodeDicomText(bytes, charsets) : Buffer.from(bytes).toString('latin1');
  const clean = written.replace(/\0+$/, '');
  if (SINGLE_VALUE.has(vr)) {
    const one = clean.replace(/ +$/, '');
    return one === '' ? [] : [one];
  }
  const parts = clean.split('\\').map((v) => (vr === 'PN' ? v.replace(/ +$/, '') : v.trim()));
  if (parts.every((v) => v === '')) return [];
  if (vr === 'PN') return parts.map((v) => (v === '' ? null : personName(v)));
  if (vr === 'IS' || vr === 'DS') {
    return parts.map((v) => {
      const n = Number(v);
      return v === '' || !Number.isFinite(n) ? null : n;
    });
  }
  return parts.map((v) => (v === '' ? null : v));
}

/** The JSON of one data set; `bulk` names where a binary value at `path` is retrieved. */
function convert(dataSet: DataSet, charsets: readonly string[], bulk: (path: string) => string, prefix: string): DicomJsonObject {
  const object: DicomJsonObject = {};
  for (const tag of Object.keys(dataSet.elements).sort()) {
    const element = dataSet.elements[tag]!;
    // Group lengths are left out of DICOM JSON (PS3.18 F.2.1); the file meta group is not the data set's.
    if (tag.endsWith('0000') || tag.startsWith('x0002')) continue;
    const vr = vrOf(element);
    const key = upper(tag);
    let json: DicomJsonElement;
    if (tag === PIXEL_DATA && prefix === '') {
      json = { vr: vr === 'UN' ? 'OW' : vr, BulkDataURI: bulk(key) };
    } else if (vr === 'SQ') {
      const items = (element.items ?? []).map((item, i) => convert(item.dataSet!, charsets, bulk, `${prefix}${key}.${i}.`));
      json = items.length > 0 ? { vr, Value: items } : { vr };
    } else if (element.length <= 0 || element.dataOffset + element.length > dataSet.byteArray.length) {
      json = { vr };
    } else if (BINARY.has(vr)) {
      json = { vr, BulkDataURI: bulk(`${prefix}${key}`) };
    } else if (vr === 'AT') {
      json = { vr, Value: tags(dataSet, element) };
    } else if (['US', 'SS', 'UL', 'SL', 'FL', 'FD', 'SV', 'UV'].includes(vr)) {
      json = { vr, Value: numbers(dataSet, element, vr) };
    } else {
      const values = text(dataSet, element, vr, charsets);
      json = values.length > 0 ? { vr, Value: values } : { vr };
    }
    object[key] = json;
  }
  return object;
}

/** The instance's metadata; `bulkBase`: …/instances/{sop}/bulkdata. */
export function instanceMetadata(header: { dataSet: DataSet; charsets: string[] }, transferSyntax: string | null, bulkBase: string): DicomJsonObject {
  const object = convert(header.dataSet, header.charsets, (path) => `${bulkBase}/${path}`, '');
  // The stored transfer syntax: viewers read it to decode the frames they are sent as stored.
  if (transferSyntax) return { '00020010': { vr: 'UI', Value: [transferSyntax] }, ...object };
  return object;
}

/** The element a bulk data address names ('7FE00010', '00540016.0.00281201'), with the data set holding it. */
export function elementAt(dataSet: DataSet, path: readonly string[]): { dataSet: DataSet; element: Element } | null {
  let current = dataSet;
  for (let i = 0; i < path.length; i += 2) {
    const element = current.elements[`x${path[i]!.toLowerCase()}`];
    if (element === undefined) return null;
    if (i + 1 === path.length) return { dataSet: current, element };
    const item = element.items?.[Number(path[i + 1])];
    if (item?.dataSet === undefined || !/^\d+$/.test(path[i + 1]!)) return null;
    current = item.dataSet;
  }
  return null;
}
