// Resumable uploads (tus 1.0, DESIGN §10): who may create, continue or end one, and what happens
// when its last byte lands. The protocol itself is @tus/server's (tus.routes.ts); everything a
// client could abuse is decided here, before it: creation is refused before a byte is stored, an
// upload is visible to its creator only, and a finished upload becomes a file through exactly the
// checks and the commit of the multipart call (UploadsService.receiveLocalFile and commit).
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { BUNDLE_METADATA_KEY, BUNDLE_METADATA_VALUE, type TProjectFile } from '@portal/contract';
import { Metadata, type DataStore } from '@tus/utils';
import { reachesProject, type Actor } from '../auth/index.js';
import type { TusUploadRow } from '../db/schema.js';
import { AppError, badRequest, notFound, unprocessable } from '../errors/app-error.js';
import { parseId } from '../http/params.js';
import type { ProjectsService } from '../projects/index.js';
import type { DeliveriesService } from '../deliveries/index.js';
import { checkContent, checkUploadName, readFileHead, startSha256, UPLOAD_HEAD_BYTES, UploadTooLargeError, type Sha256Job, type UploadsService } from '../uploads/index.js';
import { DirectFileStore } from './tus-file-store.js';
import type { SharedTus } from './tus-shared.js';
import { isWorkFile } from './tus-shared-store.js';
import { TusUploadConfigs } from './tus-upload-configs.js';
import type { TusUploadsRepository } from './tus-uploads.repository.js';

export interface TusUploadsOptions {
  /** Where bytes of unfinished uploads are kept (DATA_DIR/tus): private, and on the storage's filesystem. */
  directory: string;
  maxUploadBytes: number;
  /** An unfinished upload is removed this long after it was created (UPLOAD_EXPIRY_SECONDS). */
  expiryMs: number;
  /** Unfinished uploads one user may have at a time (UPLOAD_MAX_OPEN_PER_USER). */
  maxOpenPerUser: number;
  /** TUS_STORE=shared: bytes and offsets where every API node finds them (tus-shared.ts); `directory` is then only a work area. */
  shared?: SharedTus;
}

/** Upload-Metadata longer than this is refused: four short values need far less. */
export const MAX_METADATA_CHARS = 8192;
/** The metadata kept with an upload; other keys are accepted and dropped. */
const KNOWN_METADATA = ['filename', 'studypetitionid', 'delivery', 'relativePath', BUNDLE_METADATA_KEY, 'replaces'] as const;
const ID_PATTERN = /^[0-9a-f]{32}$/;
const NOT_FOUND = 'Upload not found';
const FINISHING = 'Another request is finishing this upload; ask where it stands (HEAD) in a moment';

/** The SHA-256 of an upload's bytes so far, taken as they arrived in this process. */
interface RunningDigest {
  offset: number;
  hash: Sha256Job;
  /** A request is feeding it; a second one at the same time gives the digest up. */
  busy: boolean;
}

/** What a request that brings bytes feeds: every byte it hands to tus, in order. */
export interface DigestTap {
  /** A promise when the next chunk must wait for it (the hash worker is behind). */
  update(chunk: Buffer): Promise<void> | undefined;
  readonly bytes: number;
}

/** A delivery's file arriving whole in its creation request, authorised, not yet recorded. */
export interface WholeDeliveryFile {
  /** The id its Location names (no upload is kept under it: the file is complete when answered). */
  id: string;
  deliveryId: number;
  relativePath: string;
  size: number;
  /** Where its bytes go first: the tus directory, on the storage's filesystem, left alone by the sweep until `done`. */
  path: string;
  done(): void;
}

/** A file arriving whole, in the tus directory; a leftover of a crash is swept as any unknown file there. */
const WHOLE_FILE_SUFFIX = '.whole';

export interface CreationHeaders {
  uploadLength: string | undefined;
  deferLength: string | undefined;
  concat: string | undefined;
  metadata: string | undefined;
}

export class TusUploadsService {
  readonly store: DataStore;
  // Hashing the bytes as they arrive spares reading a whole upload again after its last byte.
  // Anything unusual (a restart, a refused or broken request, two requests at once) drops the
  // digest, and the finish then reads the file to hash it, so a digest is only ever used when it
  // covers exactly the bytes on disk.
  readonly #digests = new Map<string, RunningDigest>();
  readonly #configs: TusUploadConfigs;
  // Files of deliveries arriving whole (tus-direct.ts) in the tus directory: the sweep leaves them.
  readonly #wholeFiles = new Set<string>();

  constructor(
    private readonly uploads: TusUploadsRepository,
    private readonly files: UploadsService,
    private readonly projects: ProjectsService,
    readonly options: TusUploadsOptions,
    private readonly deliveries: DeliveriesService,
  ) {
    mkdirSync(options.directory, { recursive: true, mode: 0o700 });
    this.#configs = new TusUploadConfigs((id) => this.uploads.find(id));
    this.store =
      options.shared?.store ?? new DirectFileStore({ directory: options.directory, configstore: this.#configs, expirationPeriodInMilliseconds: options.expiryMs });
  }

  /**
   * Everything a creation request must pass before a byte is stored, in the multipart call's order
   * (name, project and role, then size), then the per-user cap. Records the upload and answers its
   * record, under a new, unguessable id.
   */
  async authorizeCreation(actor: Actor, headers: CreationHeaders): Promise<TusUploadRow> {
    const { inDelivery, projectId, fileName, size, replaces } = await this.#checkCreation(actor, headers);
    const upload = {
      id: newUploadId(),
      user_id: actor.userId,
      company_id: actor.companyId,
      project_id: projectId,
      file_name: fileName,
      size,
      delivery_id: inDelivery?.deliveryId ?? null,
      relative_path: inDelivery?.relativePath ?? null,
      replaces,
    };
    // The record holds its Upload-Length against the company's allowance while its bytes arrive.
    const recorded = this.#admit(projectId, size, () => this.uploads.create(upload, new Date(Date.now() + this.options.expiryMs)));
    const atPath = inDelivery?.relativePath == null ? undefined : { deliveryId: inDelivery.deliveryId, relativePath: inDelivery.relativePath };
    const row = await (atPath ? recorded.catch((err: unknown) => this.deliveries.explainRecordingFailure(atPath.deliveryId, atPath.relativePath, err)) : recorded);
    return row;
  }

  /**
   * A delivery's file whose whole body comes with its creation request (tus-direct.ts): the same
   * checks as authorizeCreation, in the same order and with the same answers, but nothing is
   * recorded: the file is recorded once it arrived whole (DeliveriesService.addWholeFile).
   * Undefined when the metadata names no delivery after all (the request then goes the tus way).
   */
  async authorizeWholeDeliveryFile(actor: Actor, headers: CreationHeaders): Promise<WholeDeliveryFile | undefined> {
    const { inDelivery, projectId, size } = await this.#checkCreation(actor, headers);
    if (inDelivery?.relativePath == null) return undefined;
    // Recorded only once it arrived whole: a small file, the most it can overshoot by.
    await this.#admit(projectId, size, () => Promise.resolve());
    const id = newUploadId();
    const name = `${id}${WHOLE_FILE_SUFFIX}`;
    this.#wholeFiles.add(name);
    const arrived = this.deliveries.beginArrival(inDelivery.deliveryId);
    return {
      id,
      deliveryId: inDelivery.deliveryId,
      relativePath: inDelivery.relativePath,
      size,
      path: path.join(this.options.directory, name),
      done: () => {
        arrived();
        this.#wholeFiles.delete(name);
      },
    };
  }

  /**
   * The file authorised by authorizeWholeDeliveryFile arrived whole in its `path`, with this
   * SHA-256: it becomes a file of its delivery (or is removed, and the refusal thrown).
   */
  async addWholeDeliveryFile(file: WholeDeliveryFile, sha256: string): Promise<void> {
    try {
      await this.deliveries.addWholeFile({ deliveryId: file.deliveryId, relativePath: file.relativePath, path: file.path, size: file.size, sha256 });
    } finally {
      file.done();
    }
  }

  /** Everything a creation request must pass before a byte is stored, in the multipart call's order. */
  async #checkCreation(actor: Actor, headers: CreationHeaders) {
    if (headers.concat !== undefined) throw badRequest('Uploads in several parts (Upload-Concat) are not supported');
    if (headers.uploadLength === undefined || !/^\d{1,16}$/.test(headers.uploadLength)) {
      throw badRequest('Send Upload-Length with the size of the file in bytes (uploads of unknown length are not supported)');
    }
    const meta = parseMetadata(headers.metadata);
    const bundle = checkBundleMetadata(meta);
    // A file of a delivery (deliveries.service.ts) goes to the delivery's project, at its path; a
    // bundle of its files (a tar) to the paths its members name, read once it arrived.
    const inDelivery =
      meta.delivery == null
        ? undefined
        : bundle
          ? await this.deliveries.authorizeBundle(actor, meta.delivery)
          : await this.deliveries.authorizeFile(actor, meta.delivery, meta.relativePath);
    const fileName = checkUploadName(meta.filename ?? inDelivery?.relativePath?.split('/').pop());
    if (bundle && !fileName.toLowerCase().endsWith('.tar')) throw unprocessable('A bundle of a folder\'s files is a tar file: send its name (filename) ending in .tar');
    if (meta.studypetitionid == null && !inDelivery) throw badRequest('Send the project (studypetitionid) in Upload-Metadata');
    const projectId = inDelivery?.projectId ?? (await this.projects.require(actor, parseId(meta.studypetitionid?.trim(), 'Project'), 'create')).id;
    // `replaces` (issue 35): the rejected file this upload answers; a delivery names it at its creation.
    let replaces: number | null = null;
    if (meta.replaces != null) {
      if (inDelivery) throw badRequest('A file of a delivery does not name replaces: the delivery names the file it replaces when it is created');
      replaces = parseId(meta.replaces.trim(), 'File');
      await this.files.checkReplaces(actor, projectId, replaces);
    }
    const size = Number(headers.uploadLength);
    if (size > this.options.maxUploadBytes) throw new UploadTooLargeError(this.options.maxUploadBytes);
    if (size === 0) throw new AppError(415, 'The file is empty');
    const owner = { userId: actor.userId, companyId: actor.companyId };
    const open = await this.uploads.countUnfinished(owner);
    if (open >= this.options.maxOpenPerUser) {
      throw new AppError(
        429,
        `You already have ${open} unfinished uploads, the most one person may have at a time; let them finish or ` +
          `cancel some before starting another (an unfinished upload is removed ${describeDuration(this.options.expiryMs)} after it started)`,
      );
    }
    return { inDelivery, projectId, fileName, size, replaces };
  }

  /** Free space and the company's allowance, weighed by the uploads entry as for every path (UploadsService.admit). */
  #admit<T>(projectId: number, size: number, hold: () => Promise<T>): Promise<T> {
    return this.files.admit({ projectId }, size, hold);
  }

  /** The metadata kept with a new upload: the keys the portal knows, nothing else. */
  keptMetadata(metadata: Record<string, string | null> | undefined): Record<string, string | null> {
    const kept: Record<string, string | null> = {};
    for (const key of KNOWN_METADATA) if (metadata?.[key] !== undefined) kept[key] = metadata[key];
    return kept;
  }

  /**
   * An upload of the actor's: an unfinished one whose project the actor may still add files to, or
   * a finished one (state 'finished', naming its file) until it would have expired, so a client that
   * lost the last answer learns the upload is complete. Anyone else's id, a malformed one and an
   * expired one answer 404 alike. An upload whose project was deleted is removed.
   */
  async requireUpload(actor: Actor, id: string): Promise<TusUploadRow> {
    const row = ID_PATTERN.test(id) ? await this.uploads.findMine(id, actor) : undefined;
    // An API token limited to other projects is told nothing, and removes nothing (#requireProject would).
    if (!row || !reachesProject(actor, row.project_id)) throw notFound(NOT_FOUND);
    if (row.state === 'finished') return row;
    // Its last byte arrived and another request is making it a file: asking again soon finds it finished.
    if (row.state === 'finishing') throw new AppError(423, FINISHING);
    await this.#requireProject(actor, row);
    // A file of a delivery that was completed or removed meanwhile is refused, and removed.
    if (row.delivery_id !== null) await this.deliveries.requireOpen(actor, row.delivery_id).catch(this.#removeOnRefusal(row.id));
    return row;
  }

  /**
   * After bytes were written: the first bytes are checked as soon as they are there (so a file
   * that is not what it says is refused after its first chunk, not after gigabytes), and the
   * upload is finished when `offset` reaches its length. Answers the new file, if it finished.
   */
  async afterWrite(actor: Actor, row: TusUploadRow, offset: number): Promise<TProjectFile | undefined> {
    const size = Number(row.size);
    // A folder holds what it holds: a delivery's files are judged by processing, not refused here.
    if (!row.head_checked && row.delivery_id === null && offset >= Math.min(size, UPLOAD_HEAD_BYTES)) {
      try {
        checkContent(row.file_name, await this.#readHead(row.id));
      } catch (err) {
        await this.remove(row.id);
        throw err;
      }
      await this.uploads.markHeadChecked(row.id);
    }
    return offset === size ? this.#finish(actor, row) : undefined;
  }

  /**
   * For a request about to hand tus bytes starting at `offset`: what it must feed, if the digest
   * can continue. `expectedBytes`, the upload's length when known, lets a small one be hashed inline.
   */
  beginDigest(id: string, offset: number, expectedBytes?: number): DigestTap | undefined {
    let digest = this.#digests.get(id);
    if (!digest && offset === 0) {
      digest = { offset: 0, hash: startSha256(expectedBytes), busy: false };
      this.#digests.set(id, digest);
    }
    if (!digest || digest.busy || digest.offset !== offset) {
      this.#dropDigest(id);
      return undefined;
    }
    digest.busy = true;
    const running = digest;
    let bytes = 0;
    return {
      update(chunk) {
        bytes += chunk.length;
        return running.hash.update(chunk);
      },
      get bytes() {
        return bytes;
      },
    };
  }

  /** After tus answered: the digest goes on only if tus stored exactly the bytes it was fed. */
  endDigest(id: string, tap: DigestTap, storedOffset: number | undefined): void {
    const digest = this.#digests.get(id);
    if (!digest) return;
    if (storedOffset !== undefined && digest.offset + tap.bytes === storedOffset) {
      digest.offset = storedOffset;
      digest.busy = false;
    } else {
      this.#dropDigest(id);
    }
  }

  #dropDigest(id: string): void {
    this.#digests.get(id)?.hash.cancel();
    this.#digests.delete(id);
  }

  /** The creator ended the upload (tus termination) or it was refused: nothing of it is left. */
  async remove(id: string): Promise<void> {
    this.#dropDigest(id);
    await this.#configs.delete(id);
    if (this.options.shared) {
      await this.options.shared.store.removeBytes(id);
      await this.uploads.remove(id);
    } else {
      // The record first: from then on the upload answers 404, never a 410 for bytes already gone
      // while the record lingers. A crash in between leaves a file without a record, which the sweep removes.
      await this.uploads.remove(id);
      await rm(this.#dataPath(id), { force: true });
    }
  }

  /** A creation that failed inside the tus server after it was recorded leaves nothing either. */
  async abandonCreation(id: string): Promise<void> {
    await this.remove(id);
  }

  /**
   * Removes expired uploads, and tus files no record names (a crash between removing an upload's
   * bytes and its record). `startup` is for the only process that uploads (SQLite): an upload
   * that was being finished died with the last process. Answers how many uploads were removed.
   */
  async sweep(opts: { startup: boolean }): Promise<number> {
    // Files first, records second: a record is made before its files, so a file found without a
    // record cannot belong to an upload created meanwhile (only to one being removed, or to none).
    // With the shared store, files here are finishing requests' work files (or a former file store's uploads).
    const names = (await readdir(this.options.directory).catch(() => [] as string[])).filter(
      (n) => (!this.options.shared || !isWorkFile(n)) && !this.#wholeFiles.has(n),
    );
    const ids = [...new Set(names.map((n) => n.replace(/\.json$/, '')))];
    const known = await this.uploads.existing(ids.filter((id) => ID_PATTERN.test(id)));
    let removed = this.options.shared ? await this.options.shared.store.sweepOrphans() : 0;
    for (const name of names) {
      if (!known.has(name.replace(/\.json$/, ''))) {
        await rm(path.join(this.options.directory, name), { recursive: true, force: true });
        removed += 1;
      }
    }
    for (const id of await this.uploads.stale({ finishing: opts.startup })) {
      await this.remove(id);
      removed += 1;
    }
    return removed;
  }

  async #finish(actor: Actor, row: TusUploadRow): Promise<TProjectFile | undefined> {
    const inDelivery = row.delivery_id !== null;
    // One request finishes an upload: another one at the same time finds it claimed (423, and a HEAD
    // then finds it finished). A file or a bundle of a delivery is claimed instead by the
    // transaction that records it.
    if (!inDelivery && !(await this.uploads.claimForFinish(row.id, actor))) throw new AppError(423, FINISHING);
    let sha256 = await this.#takeDigest(row);
    // The shared store's chunks become one local file for the completion path, hashed on the way.
    const assembled = await this.options.shared?.store.assemble(row.id, Number(row.size), { hash: sha256 === undefined }).catch(async (err: unknown) => {
      await this.remove(row.id);
      throw err;
    });
    sha256 ??= assembled?.sha256;
    const dataPath = assembled?.path ?? this.#dataPath(row.id);
    if (row.delivery_id !== null) {
      // A file of the delivery, or a bundle of its files (no path of its own): recorded as its
      // member(s), or nothing of it is kept.
      const deliveryId = row.delivery_id;
      const relativePath = row.relative_path;
      try {
        if (relativePath === null) await this.deliveries.addBundle(row.id, { deliveryId, path: dataPath, size: Number(row.size), ...(sha256 !== undefined ? { sha256 } : {}) });
        else await this.deliveries.addFile(row.id, { deliveryId, relativePath, path: dataPath, size: Number(row.size), sha256 });
      } catch (err) {
        await this.remove(row.id);
        throw err;
      } finally {
        await assembled?.release();
      }
      // Its record ended with the member's; a file's bytes were moved into storage, a bundle's
      // staged upload file is removed here (a shared store's chunks remain).
      await this.#configs.delete(row.id);
      if (this.options.shared) await this.options.shared.store.removeBytes(row.id);
      else if (relativePath === null) await rm(dataPath, { force: true });
      return undefined;
    }
    let file: TProjectFile;
    try {
      const received = await this.files.receiveLocalFile(actor, {
        fileName: row.file_name,
        path: dataPath,
        projectId: row.project_id,
        ...(sha256 !== undefined ? { sha256 } : {}),
      });
      if (received.size !== Number(row.size)) {
        await this.files.discard(received);
        throw badRequest('The upload ended with a different size than announced; upload the file again');
      }
      file = await this.files.commit(actor, received, row.project_id, row.replaces);
    } catch (err) {
      await this.remove(row.id);
      throw err;
    } finally {
      await assembled?.release();
    }
    await this.#keepFinished(row.id, file.id);
    return file;
  }

  /**
   * A finished upload's bytes go (they are the file's now) but its record stays, naming the file,
   * until the upload would have expired (the sweep then removes it like any expired upload).
   */
  async #keepFinished(id: string, fileId: number): Promise<void> {
    this.#dropDigest(id);
    await this.#configs.delete(id);
    // The record first: a crash before the bytes are gone leaves them to the sweep at expiry.
    await this.uploads.markFinished(id, fileId);
    if (this.options.shared) await this.options.shared.store.removeBytes(id);
    else await rm(this.#dataPath(id), { force: true });
  }

  /** The SHA-256 of all of the upload's bytes, if it was taken as they arrived. */
  async #takeDigest(row: TusUploadRow): Promise<string | undefined> {
    const digest = this.#digests.get(row.id);
    const sha256 = digest && !digest.busy && digest.offset === Number(row.size) ? await digest.hash.digest() : undefined;
    this.#dropDigest(row.id);
    return sha256;
  }

  #removeOnRefusal(id: string) {
    return async (err: unknown) => {
      if (err instanceof AppError && (err.status === 404 || err.status === 409)) await this.remove(id);
      throw err;
    };
  }

  async #requireProject(actor: Actor, row: TusUploadRow): Promise<void> {
    try {
      await this.projects.require(actor, row.project_id, 'create');
    } catch (err) {
      if (err instanceof AppError && err.status === 404) await this.remove(row.id);
      throw err;
    }
  }

  async #readHead(id: string): Promise<Buffer> {
    if (this.options.shared) return this.options.shared.store.readHead(id, UPLOAD_HEAD_BYTES);
    return (await readFileHead(this.#dataPath(id))).head;
  }

  #dataPath(id: string): string {
    if (!ID_PATTERN.test(id)) throw notFound(NOT_FOUND);
    return path.join(this.options.directory, id);
  }
}

/** A new, unguessable upload id. */
function newUploadId(): string {
  return randomBytes(16).toString('hex');
}

function parseMetadata(header: string | undefined): Partial<Record<string, string | null>> {
  if (header === undefined || header.trim() === '') {
    throw badRequest('Send Upload-Metadata with the file name (filename) and the project (studypetitionid)');
  }
  if (header.length > MAX_METADATA_CHARS) {
    throw badRequest(`Upload-Metadata is longer than ${MAX_METADATA_CHARS} characters; send only filename, studypetitionid, delivery, relativePath and bundle`);
  }
  try {
    return Metadata.parse(header);
  } catch {
    throw badRequest(
      'Upload-Metadata is not valid: send comma-separated pairs of a key and its value in base64, each key once',
    );
  }
}

/**
 * Whether the upload is a bundle of a delivery's files (`bundle=tar`, contract/src/delivery-bundle.ts).
 * A delivery's upload is either one file at its path (relativePath) or a bundle, never both.
 */
function checkBundleMetadata(meta: Partial<Record<string, string | null>>): boolean {
  const value = meta[BUNDLE_METADATA_KEY];
  if (value === undefined) return false;
  if (value !== BUNDLE_METADATA_VALUE) throw unprocessable(`Send ${BUNDLE_METADATA_KEY}=${BUNDLE_METADATA_VALUE} for a bundle of a folder's files (a tar file); no other kind of bundle is read`);
  if (meta.delivery == null) throw unprocessable('A bundle of files belongs to a delivery: send the delivery (delivery) with it');
  if (meta.relativePath != null) {
    throw unprocessable('Send either the path of one file (relativePath) or a bundle of files (bundle=tar), not both: the paths of a bundle\'s files are inside it');
  }
  return true;
}

function describeDuration(ms: number): string {
  const hours = ms / 3_600_000;
  if (hours >= 1 && Number.isInteger(hours)) return `${hours} hour${hours === 1 ? '' : 's'}`;
  const minutes = Math.max(1, Math.round(ms / 60_000));
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}
