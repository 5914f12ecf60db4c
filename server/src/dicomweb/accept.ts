// What a DICOMweb client may ask for (PS3.18 8.7.3): DICOM JSON for searches and metadata; the
// stored bytes, as stored, for instances, frames and bulk data. Nothing is transcoded: a client
// that names only other types or transfer syntaxes is answered 406 in words.
import { AppError } from '../errors/app-error.js';

const JSON_TYPES = new Set(['application/dicom+json', 'application/json', 'application/*', '*/*']);

export interface MediaRange {
  type: string;
  params: Record<string, string>;
}

/** The ranges of an Accept header, parameters unquoted ('multipart/related; type="application/dicom"'). */
export function mediaRanges(accept: string | undefined): MediaRange[] {
  if (accept === undefined || accept.trim() === '') return [];
  const ranges: MediaRange[] = [];
  // Commas inside quoted parameters do not separate ranges.
  for (const range of accept.match(/(?:[^,"]|"[^"]*")+/g) ?? []) {
    const [type, ...rest] = range.split(';');
    const params: Record<string, string> = {};
    for (const param of rest) {
      const at = param.indexOf('=');
      if (at < 0) continue;
      params[param.slice(0, at).trim().toLowerCase()] = param.slice(at + 1).trim().replace(/^"(.*)"$/, '$1');
    }
    if (params.q === '0') continue;
    ranges.push({ type: type!.trim().toLowerCase(), params });
  }
  return ranges;
}

export function requireDicomJson(accept: string | undefined, what = 'This search answers'): void {
  const ranges = mediaRanges(accept);
  if (ranges.length === 0 || ranges.some((range) => JSON_TYPES.has(range.type))) return;
  throw new AppError(406, `${what} only DICOM JSON: ask for application/dicom+json (or leave Accept out)`);
}

const NATIVE_LE = new Set(['1.2.840.10008.1.2', '1.2.840.10008.1.2.1']);

/** The media type of a frame stored in `syntax` (PS3.18 Table 8.7.3-2, with the names clients also use). */
export function frameMediaTypes(syntax: string, native: boolean): string[] {
  if (native) return ['application/octet-stream'];
  const last = syntax.replace('1.2.840.10008.1.2.', '');
  if (['4.50', '4.51', '4.57', '4.70'].includes(last)) return ['image/jpeg'];
  if (['4.80', '4.81'].includes(last)) return ['image/jls', 'image/x-jls'];
  if (['4.90', '4.91'].includes(last)) return ['image/jp2'];
  if (['4.92', '4.93'].includes(last)) return ['image/jpx'];
  if (['4.201', '4.202', '4.203'].includes(last)) return ['image/jphc', 'image/jhc'];
  if (last === '5') return ['image/dicom-rle', 'image/x-dicom-rle'];
  if (['4.100', '4.101'].includes(last)) return ['video/mpeg'];
  if (['4.102', '4.103', '4.104', '4.105', '4.106'].includes(last)) return ['video/mp4'];
  if (['4.107', '4.108'].includes(last)) return ['video/h265'];
  return ['application/octet-stream'];
}

/** Whether a range's transfer-syntax parameter takes `syntax` (none: the type's default, taken as stored). */
function syntaxFits(range: MediaRange, syntax: string): boolean {
  const wanted = range.params['transfer-syntax'];
  if (wanted === undefined || wanted === '*' || wanted === syntax) return true;
  // Native little endian pixel data is the same bytes whether the file's VRs are explicit or not.
  return NATIVE_LE.has(wanted) && NATIVE_LE.has(syntax);
}

const typeFits = (pattern: string, type: string) => pattern === '*/*' || pattern === type || (pattern.endsWith('/*') && type.startsWith(pattern.slice(0, -1)));

/**
 * How to send pixel data (frames, or Pixel Data's bulk data) stored in `syntax`: as parts of a
 * multipart/related answer, or (for one value) alone. Throws 406 when the client takes neither.
 */
export function negotiateFrames(accept: string | undefined, syntax: string, native: boolean, single: boolean): 'multipart' | 'single' {
  const ranges = mediaRanges(accept);
  if (ranges.length === 0) return 'multipart';
  const types = frameMediaTypes(syntax, native);
  for (const range of ranges) {
    if (range.type === 'multipart/related' || range.type === 'multipart/*') {
      const type = range.params.type?.toLowerCase() ?? 'application/octet-stream';
      // application/octet-stream with transfer-syntax=* takes the frames as stored, whatever their type.
      const octets = type === 'application/octet-stream' && (native || range.params['transfer-syntax'] === '*' || range.params['transfer-syntax'] === syntax);
      if ((octets || types.some((t) => typeFits(type, t))) && syntaxFits(range, syntax)) return 'multipart';
    } else if (range.type === '*/*') return 'multipart';
    else if (single && types.some((t) => typeFits(range.type, t)) && syntaxFits(range, syntax)) return 'single';
  }
  throw new AppError(
    406,
    `These frames are stored as ${types[0]} (transfer syntax ${syntax}) and are sent only as stored: ask for multipart/related; type="${types[0]}", or type=application/octet-stream; transfer-syntax=*`,
  );
}

/** Whether instances stored in `syntaxes` may be sent as the client asks; throws 406 in words if not. */
export function requireDicomParts(accept: string | undefined, syntaxes: readonly string[]): void {
  const ranges = mediaRanges(accept);
  if (ranges.length === 0) return;
  for (const range of ranges) {
    if (range.type === '*/*') return;
    if (range.type !== 'multipart/related' && range.type !== 'multipart/*') continue;
    const type = range.params.type?.toLowerCase() ?? 'application/dicom';
    if (typeFits(type, 'application/dicom') && syntaxes.every((s) => syntaxFits(range, s))) return;
  }
  throw new AppError(
    406,
    'Instances are sent only as stored, in multipart/related; type="application/dicom" (with transfer-syntax=* or the stored one): ask for that, or leave Accept out',
  );
}

/** Whether a bulk data value other than pixel data may be sent: octets, in one part or alone. */
export function negotiateOctets(accept: string | undefined): 'multipart' | 'single' {
  const ranges = mediaRanges(accept);
  if (ranges.length === 0) return 'multipart';
  for (const range of ranges) {
    if (range.type === '*/*') return 'multipart';
    if ((range.type === 'multipart/related' || range.type === 'multipart/*') && typeFits(range.params.type?.toLowerCase() ?? 'application/octet-stream', 'application/octet-stream')) return 'multipart';
    if (typeFits(range.type, 'application/octet-stream')) return 'single';
  }
  throw new AppError(406, 'Bulk data is sent as application/octet-stream: ask for multipart/related; type="application/octet-stream" (or leave Accept out)');
}
