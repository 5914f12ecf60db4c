// What a download answers (DESIGN §4): status and headers decided by a pure function from the
// stored file's facts and the request's conditional and Range headers, then the bytes streamed
// from storage. Only single byte ranges are served (enough for resuming a download); a request
// for several ranges gets the whole file with 200, which RFC 9110 §14.2 allows and every client
// handles, instead of a multipart/byteranges body no caller of this API needs.
import { create as contentDisposition } from 'content-disposition';
import type { FastifyReply } from 'fastify';
import parseRange from 'range-parser';
import type { ByteRange, Storage } from '../storage/storage.js';
import { removeDisguisingCharacters } from './file-name.js';

export interface DownloadFacts {
  size: number;
  /** Lower-case hex SHA-256 of the bytes; the strong ETag is made from it. */
  sha256: string;
  /** Anything not a plain `type/subtype` (e.g. a client-sent value with CR/LF) becomes application/octet-stream. */
  contentType: string;
  /** The name the file was uploaded with; it is cleaned and encoded here, so pass it as stored. */
  fileName: string;
}

/** The request's headers; Fastify's `request.headers` can be passed as it is. */
export interface DownloadConditions {
  range?: string | string[] | undefined;
  'if-none-match'?: string | string[] | undefined;
  'if-range'?: string | string[] | undefined;
}

export interface DownloadPlan {
  status: 200 | 206 | 304 | 416;
  headers: Record<string, string>;
  /** What to stream: the whole object (null with 200), one range (206), or nothing (304, 416). */
  body: { range: ByteRange | null } | null;
}

// The longest name offered to the browser; filesystems refuse longer ones anyway.
const MAX_NAME_LENGTH = 255;
const SAFE_CONTENT_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/i;

export function strongEtag(sha256: string): string {
  return `"${sha256}"`;
}

export function planDownload(facts: DownloadFacts, conditions: DownloadConditions): DownloadPlan {
  const etag = strongEtag(facts.sha256);
  // Medical data: no shared cache may keep it, and no browser cache either (shared workstations).
  const common = { 'accept-ranges': 'bytes', etag, 'cache-control': 'private, no-store' };

  // RFC 9110 §13.2.2: If-None-Match is evaluated before Range.
  const ifNoneMatch = conditions['if-none-match'];
  if (ifNoneMatch !== undefined && noneMatchHits([ifNoneMatch].flat().join(','), etag)) {
    return { status: 304, headers: common, body: null };
  }

  const whole: DownloadPlan = {
    status: 200,
    headers: { ...common, ...entityHeaders(facts), 'content-length': String(facts.size) },
    body: { range: null },
  };
  // Repeated Range or If-Range headers are malformed; the whole file is the safe answer.
  const rangeHeader = conditions.range;
  if (typeof rangeHeader !== 'string') return whole;
  // If-Range with anything but our current strong ETag (another ETag, a weak one, a date: we keep
  // no Last-Modified) means the client's partial copy may be stale, so it gets everything.
  const ifRange = conditions['if-range'];
  if (ifRange !== undefined && (typeof ifRange !== 'string' || ifRange.trim() !== etag)) return whole;

  const ranges = parseRange(facts.size, clampSuffixes(rangeHeader, facts.size), { combine: true });
  if (ranges === -1) {
    return { status: 416, headers: { ...common, 'content-range': `bytes */${facts.size}` }, body: null };
  }
  // Malformed, another unit, or several disjoint ranges: ignore the header (RFC 9110 §14.2).
  if (ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return whole;
  const { start, end } = ranges[0]!;
  return {
    status: 206,
    headers: {
      ...common,
      ...entityHeaders(facts),
      'content-length': String(end - start + 1),
      'content-range': `bytes ${start}-${end}/${facts.size}`,
    },
    body: { range: { start, end } },
  };
}

/**
 * Answers a download: plans it, then streams the planned bytes from storage into the reply. The
 * storage read is opened before the status is sent, so a missing object rejects (the caller's
 * error handler answers) instead of cutting a 200 short.
 */
export async function sendDownload(
  reply: FastifyReply,
  input: {
    storage: Storage;
    key: string;
    /** Where the bytes start in the object (an entry read in place from its zip upload); 0 by default. */
    offset?: number;
    facts: DownloadFacts;
    conditions: DownloadConditions;
  },
): Promise<FastifyReply> {
  const plan = planDownload(input.facts, input.conditions);
  if (plan.body === null) {
    reply.status(plan.status).headers(plan.headers);
    return plan.status === 416 ? reply.send({ message: 'The requested range is not satisfiable' }) : reply.send();
  }
  const offset = input.offset ?? 0;
  const range = plan.body.range ?? (offset === 0 ? null : { start: 0, end: input.facts.size - 1 });
  const stream = await input.storage.get(input.key, range === null ? undefined : { start: offset + range.start, end: offset + range.end });
  return reply.status(plan.status).headers(plan.headers).send(stream);
}

function entityHeaders(facts: DownloadFacts): Record<string, string> {
  return {
    'content-type': SAFE_CONTENT_TYPE.test(facts.contentType) ? facts.contentType : 'application/octet-stream',
    'content-disposition': attachmentHeader(facts.fileName),
    'x-content-type-options': 'nosniff',
  };
}

/** `attachment` with an ASCII `filename` for old clients and the exact name in `filename*` (RFC 6266, 5987). */
export function attachmentHeader(originalName: string): string {
  const name = cleanFileName(originalName);
  return contentDisposition(name, { type: 'attachment', fallback: asciiFallback(name) });
}

/**
 * The name as a browser should save it: control characters (which could split the header or hide
 * in a file manager) and bidirectional overrides (which can disguise `exe.dcm` as `mcd.exe`) are
 * removed, path separators become '_', and over-long names are shortened keeping the extension.
 */
export function cleanFileName(originalName: string): string {
  const cleaned = removeDisguisingCharacters(originalName)
    .replace(/[/\\]/g, '_')
    .trim();
  const name = cleaned === '' || /^\.+$/.test(cleaned) ? 'download' : cleaned;
  return shorten(name, MAX_NAME_LENGTH);
}

function shorten(name: string, max: number): string {
  const chars = Array.from(name);
  if (chars.length <= max) return name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 && name.length - dot <= 16 ? Array.from(name.slice(dot)) : [];
  return chars.slice(0, max - extension.length).join('') + extension.join('');
}

// '%' is avoided because some clients percent-decode the plain filename; quotes and backslashes
// because clients disagree on quoted-string escapes. The exact name travels in filename*.
function asciiFallback(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x20-\x7e]|["%\\]/g, '_');
}

// RFC 9110 §14.1.1: a suffix longer than the file means the whole file; range-parser would call
// it unsatisfiable, so `-N` past the size is rewritten as `0-` first.
function clampSuffixes(header: string, size: number): string {
  const eq = header.indexOf('=');
  if (eq < 0 || size === 0) return header;
  const specs = header
    .slice(eq + 1)
    .split(',')
    .map((spec) => {
      const suffix = /^\s*-\s*(\d+)\s*$/.exec(spec);
      return suffix !== null && Number(suffix[1]) > size ? '0-' : spec;
    });
  return `${header.slice(0, eq + 1)}${specs.join(',')}`;
}

function noneMatchHits(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  // Weak comparison (RFC 9110 §13.1.2): W/"x" matches "x".
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
