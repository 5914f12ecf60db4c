// Download links (docs/api.md, 'Download links'): a session's bearer token cannot travel with a
// plain link, and no long-lived token may ever be in a URL, so a large download is handed to the
// browser as a URL holding a ticket that is good for one download only.
//
// Single use and resume live together like this: the first GET spends the ticket and binds it to
// that client (address and User-Agent). From then on, until the resume window ends, the same client
// may only continue that download: a Range request starting past the first byte whose If-Range is
// the file's strong ETag (what a browser sends when it resumes a paused or broken download). Any
// other use of a spent ticket, by anyone, is refused with 410. A folder's zip has no Range, so its
// ticket serves exactly one GET.
import { createHash, randomBytes } from 'node:crypto';
import type { TCreateDownloadLink, TDownloadLink } from '@portal/contract';
import type { Actor } from '../auth/index.js';
import type { DownloadLinkRow, ProjectFileRow } from '../db/schema.js';
import { AppError, notFound } from '../errors/app-error.js';
import type { UsersRepository } from '../users/index.js';
import { isRole } from '../users/index.js';
import type { AuditActor } from '../audit/index.js';
import type { ContentsService, DownloadableEntry } from './contents.service.js';
import type { DownloadConditions } from './download-response.js';
import { refuseInfectedFile } from './infected.js';
import { strongEtag } from './download-response.js';
import type { DownloadLinksRepository } from './download-links.repository.js';
import type { FilesService } from './files.service.js';

export interface DownloadLinkOptions {
  /** A new link must be started within this. */
  startMs: number;
  /** After the first use, how long the same client may resume it. */
  resumeMs: number;
}

/** Where download links are served; the ticket follows. */
export const LINK_PATH = '/dl/';
const TICKET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

const INVALID = 'This download link is not valid. Start the download again from the portal.';
const EXPIRED = 'This download link has expired. Start the download again from the portal.';
const SPENT = 'This download link has already been used. Start the download again from the portal.';

/** What a link serves, checked again with its creator's current rights. */
export type LinkTarget = { kind: 'file'; row: ProjectFileRow } | ({ kind: 'entry' } & DownloadableEntry);

/** The parts of a request a link's use is judged by. */
export interface LinkRequest {
  headers: DownloadConditions & { 'user-agent'?: string | undefined };
  ip: string;
}

export class DownloadLinksService {
  constructor(
    private readonly links: DownloadLinksRepository,
    private readonly users: UsersRepository,
    private readonly files: FilesService,
    private readonly contents: ContentsService,
    private readonly options: DownloadLinkOptions,
    private readonly clock: () => number = Date.now,
  ) {}

  /** A deleted file's links stop working (its 'file.removed'). */
  async fileRemoved(fileId: number): Promise<void> {
    await this.links.revokeFiles([fileId]);
  }

  /** Authorised exactly like the download itself: 404 outside the actor's companies or for a deleted file or a skipped entry. */
  async create(actor: Actor, request: TCreateDownloadLink, apiPrefix: string): Promise<TDownloadLink> {
    const file = await this.files.require(actor, request.file_id, 'download');
    if (request.entry_id !== undefined) await this.contents.downloadableEntry(actor, file.id, request.entry_id);
    else refuseInfectedFile(file);
    const ticket = randomBytes(32).toString('base64url');
    const startBy = new Date(this.clock() + this.options.startMs);
    await this.links.create({
      ticket_hash: hashOf(ticket),
      user_id: actor.userId,
      company_id: actor.companyId,
      file_id: file.id,
      entry_id: request.entry_id ?? null,
      start_by: startBy.toISOString(),
    });
    return { url: `${apiPrefix}${LINK_PATH}${ticket}`, expires_at: startBy.toISOString() };
  }

  /** The target of a link being used, or the error saying why this use is refused. */
  async open(ticket: string, request: LinkRequest): Promise<LinkTarget> {
    if (!TICKET_PATTERN.test(ticket)) throw notFound(INVALID);
    const link = await this.links.findByHash(hashOf(ticket));
    if (!link) throw notFound(INVALID);
    const now = new Date(this.clock());
    if (link.used_at === null && Date.parse(link.start_by) <= now.getTime()) throw new AppError(410, EXPIRED);

    const { target, by } = await this.#target(link);
    const clientHash = clientOf(request);
    if (link.used_at === null && (await this.links.claim(link.id, { now, clientHash, resumeUntil: new Date(now.getTime() + this.options.resumeMs) }))) {
      return this.#recorded(target, by);
    }
    // Spent (now, or by a request that won the race): only its client may continue it, in time.
    const spent = link.used_at === null ? await this.links.findByHash(link.ticket_hash) : link;
    const etag = etagOf(target);
    const resumable =
      spent !== undefined &&
      spent.client_hash === clientHash &&
      Date.parse(spent.dead_after) > now.getTime() &&
      etag !== null &&
      isContinuation(request.headers, etag);
    if (!resumable) throw new AppError(410, SPENT);
    return this.#recorded(target, by);
  }

  /** A link's download, in the audit trail as its creator's, from the address that used it. */
  async #recorded(target: LinkTarget, by: AuditActor): Promise<LinkTarget> {
    if (target.kind === 'file') await this.files.recordDownload(target.row, by);
    else await this.files.recordEntryDownload(target.file, target.row, by);
    return target;
  }

  sweep(): Promise<number> {
    return this.links.sweep(new Date(this.clock()));
  }

  /** The file or entry as its creator may download it now: a deleted user, file or entry, or lost rights, end the link. */
  async #target(link: DownloadLinkRow): Promise<{ target: LinkTarget; by: AuditActor }> {
    const user = await this.users.findById(link.user_id);
    if (!user || user.disabled || !isRole(user.role) || user.company_id !== link.company_id) throw notFound(INVALID);
    const actor: Actor = { userId: user.id, companyId: user.company_id, role: user.role };
    const by: AuditActor = { id: user.id, name: user.username, companyId: user.company_id };
    try {
      if (link.entry_id === null) {
        const row = await this.files.require(actor, link.file_id, 'download');
        // Found infected after the link was made: refused with the reason (409), not as a broken link.
        refuseInfectedFile(row);
        return { target: { kind: 'file', row }, by };
      }
      return { target: { kind: 'entry', ...(await this.contents.downloadableEntry(actor, link.file_id, link.entry_id)) }, by };
    } catch (error) {
      // Its project deleted, or its rights gone: the link, not the file, is what the browser asked for.
      if (error instanceof AppError && (error.status === 403 || error.status === 404)) throw notFound(INVALID);
      throw error;
    }
  }
}

function hashOf(ticket: string): string {
  return createHash('sha256').update(ticket).digest('hex');
}

function clientOf(request: LinkRequest): string {
  return createHash('sha256').update(`${request.ip}\n${request.headers['user-agent'] ?? ''}`).digest('hex');
}

/** A folder's zip is made while it is sent: no ETag, so nothing to resume. */
function etagOf(target: LinkTarget): string | null {
  if (target.kind === 'entry') return target.row.sha256 === null ? null : strongEtag(target.row.sha256);
  return target.row.kind === 'folder' ? null : strongEtag(target.row.sha256);
}

/**
 * A browser resuming a download: one range that starts past the first byte, on the same bytes
 * (If-Range with the strong ETag). A request for the whole file again is not a continuation.
 */
export function isContinuation(headers: DownloadConditions, etag: string): boolean {
  const { range } = headers;
  const ifRange = headers['if-range'];
  if (typeof range !== 'string' || typeof ifRange !== 'string' || ifRange.trim() !== etag) return false;
  const match = /^\s*bytes\s*=\s*(\d+)\s*-\s*(\d*)\s*$/.exec(range);
  return match !== null && Number(match[1]) > 0;
}
