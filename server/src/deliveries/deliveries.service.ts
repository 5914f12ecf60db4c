// Deliveries (DESIGN §10): a folder sent as one unit. Created open; filled by resumable uploads that
// name it (tus-uploads.service.ts asks here before a byte is stored and hands each finished file
// over); completed into one row of the project's files with one processing job; or, left open,
// removed with everything in it when it expires.
import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { TCreateDelivery, TDelivery } from '@portal/contract';
import { can, companyScope, reachesProject, type Actor } from '../auth/index.js';
import type { DeliveryFileRow, DeliveryRow, ProjectFileRow, ProjectRow } from '../db/schema.js';
import { conflict, forbidden, notFound, unprocessable } from '../errors/app-error.js';
import type { Announcer } from '../events/events.js';
import { parseId } from '../http/params.js';
import type { FolderFile, FolderMembers } from '../files/index.js';
import type { ProjectsService } from '../projects/index.js';
import { newUploadKey } from '../storage/object-key.js';
import type { Storage } from '../storage/storage.js';
import type { DeliveriesRepository, DeliveryWithTotals, NewMember } from './deliveries.repository.js';
import { GroupCommit } from './deliveries-group-commit.js';
import type { DeliveryEvents } from './delivery-events.js';
import { readBundle } from './delivery-bundle.js';
import { checkRelativePath, pathTaken } from './delivery-paths.js';
import { checkFileName, storeArriving, type ArrivingBytes, type PendingUploadsRepository, type UploadsService } from '../uploads/index.js';

export interface DeliveriesOptions {
  maxUploadBytes: number;
  uploadLeaseMs: number;
  /** An open delivery is removed this long after its last file arrived (UPLOAD_EXPIRY_SECONDS). */
  expiryMs: number;
}

const NOT_FOUND = 'Delivery not found';
/** Files looked at together when a delivery is completed. */
const STAT_BATCH = 64;
/** Files that arrived whole recorded in one transaction at most (a multi-row insert). */
const MEMBER_BATCH = 128;

export { checkRelativePath } from './delivery-paths.js';

export const COMPLETED_MESSAGE = 'This delivery is already complete, so no more files can be added to it; create a new delivery for further files';

function presentDelivery(row: DeliveryWithTotals): TDelivery {
  return {
    id: row.id,
    name: row.name,
    status: row.state,
    studypetitionid: row.project_id,
    files: row.files,
    bytes: row.bytes,
    file_id: row.file_id,
    expires_at: row.state === 'open' ? row.expires_at : null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A file of a delivery that arrived whole in its creation request, in a local file of its own. */
export interface WholeFile {
  deliveryId: number;
  relativePath: string;
  /** A private (0600) file on the storage's filesystem, moved into storage or removed by the call. */
  path: string;
  size: number;
  sha256: string;
}

export class DeliveriesService implements FolderMembers {
  // Files arriving whole in a request of this process (addWholeFile), per delivery: they have no
  // upload record, so completion and the expiry sweep ask here too. The fast path that makes them
  // runs with the file store only, which keeps a delivery's uploads on one node.
  readonly #arrivingHere = new Map<number, number>();
  readonly #members: GroupCommit<NewMember, 'added' | 'closed'>;

  constructor(
    private readonly deliveries: DeliveriesRepository,
    private readonly pending: PendingUploadsRepository,
    private readonly projects: ProjectsService,
    private readonly uploads: UploadsService,
    private readonly storage: Storage,
    private readonly options: DeliveriesOptions,
    private readonly events: Announcer<DeliveryEvents>,
  ) {
    this.#members = new GroupCommit(MEMBER_BATCH, (batch) => this.deliveries.addMembers(batch, this.#expiry()));
  }

  async create(actor: Actor, body: TCreateDelivery): Promise<TDelivery> {
    const name = checkFileName(body.name);
    const project = await this.projects.require(actor, body.studypetitionid, 'create');
    // Checked now, before any file is sent, and again when the delivery completes (issue 35).
    if (body.replaces !== undefined) await this.uploads.checkReplaces(actor, project.id, body.replaces);
    const row = await this.deliveries.create(
      { project_id: project.id, company_id: project.company_id, created_by: actor.userId, name, replaces: body.replaces ?? null },
      this.#expiry(),
    );
    return presentDelivery({ ...row, files: 0, bytes: 0 });
  }

  async get(actor: Actor, id: number): Promise<TDelivery> {
    return presentDelivery(await this.#require(actor, id));
  }

  /**
   * Before a resumable upload naming a delivery stores a byte: the delivery must be the actor's
   * company's (404 otherwise, and for one that expired), open (409 once completed), the path must
   * be safe and free (422), and the actor must be allowed to add files to its project (403).
   * Answers the project the file goes to and its normalised path.
   */
  async authorizeFile(actor: Actor, deliveryRef: string, rawPath: string | null | undefined): Promise<{ deliveryId: number; projectId: number; relativePath: string }> {
    // The delivery is found only in the actor's company (or any, for a Sys role) and with its
    // project live, so reading the project as well (#requireRow) would add nothing but a query.
    const delivery = await this.deliveries.findRow(parseId(deliveryRef.trim(), 'Delivery'), companyScope(actor));
    if (!delivery || !reachesProject(actor, delivery.project_id)) throw notFound(NOT_FOUND);
    if (delivery.state !== 'open') throw conflict(COMPLETED_MESSAGE);
    const relativePath = checkRelativePath(rawPath);
    if (await this.deliveries.pathTaken(delivery.id, relativePath)) throw pathTaken(relativePath);
    if (!can(actor, 'create', delivery.company_id)) throw forbidden();
    return { deliveryId: delivery.id, projectId: delivery.project_id, relativePath };
  }

  /**
   * Before a bundle of the delivery's files (a tar, contract/src/delivery-bundle.ts) stores a byte:
   * the same rules as for a file of it, but its members' paths are known only once it arrived
   * whole (addBundle checks them then).
   */
  async authorizeBundle(actor: Actor, deliveryRef: string): Promise<{ deliveryId: number; projectId: number; relativePath: null }> {
    const delivery = await this.deliveries.findRow(parseId(deliveryRef.trim(), 'Delivery'), companyScope(actor));
    if (!delivery || !reachesProject(actor, delivery.project_id)) throw notFound(NOT_FOUND);
    if (delivery.state !== 'open') throw conflict(COMPLETED_MESSAGE);
    if (!can(actor, 'create', delivery.company_id)) throw forbidden();
    return { deliveryId: delivery.id, projectId: delivery.project_id, relativePath: null };
  }

  /**
   * Recording an upload failed: when two uploads asked for the same path at once, the database's
   * unique index refused the second, which is then told so (422) like any taken path.
   */
  async explainRecordingFailure(deliveryId: number, relativePath: string, err: unknown): Promise<never> {
    if (await this.deliveries.pathTaken(deliveryId, relativePath)) throw pathTaken(relativePath);
    throw err;
  }

  /**
   * A resumable upload of the delivery may go on only while it is open. The caller has checked
   * that the actor may add files to the upload's project, which is the delivery's.
   */
  async requireOpen(actor: Actor, deliveryId: number): Promise<void> {
    const delivery = await this.deliveries.findRow(deliveryId, companyScope(actor));
    if (!delivery || !reachesProject(actor, delivery.project_id)) throw notFound(NOT_FOUND);
    if (delivery.state !== 'open') throw conflict(COMPLETED_MESSAGE);
  }

  /**
   * A file of the delivery arrived whole (in a local file, the tus store's), through a request
   * that has checked the actor's access (authorizeFile or requireOpen): it is moved into storage
   * as it is (any content: a folder holds what it holds; processing says what each file is) and
   * recorded at its path, in the same transaction that ends its upload's record `uploadId` (so it
   * is arriving or arrived, never both, and one request finishes it: another answers 404); unless
   * the delivery was completed or removed meanwhile (409). It is not synced on its own:
   * completion syncs all of a delivery's files at once, before it is visible.
   */
  async addFile(uploadId: string, input: { deliveryId: number; relativePath: string; path: string; size: number; sha256?: string | undefined }): Promise<void> {
    const key = newUploadKey();
    await this.pending.begin(key, this.options.uploadLeaseMs);
    let added = false;
    try {
      // The SHA-256 taken while the bytes arrived, when tus had one for exactly them; else computed there.
      const stored = await this.#store({ from: 'file', path: input.path, sha256: input.sha256 }, key, { durable: false });
      if (stored.size !== input.size) throw unprocessable('The file ended with a different size than announced; send it again');
      const outcome = await this.deliveries.addMember(
        { delivery_id: input.deliveryId, relative_path: input.relativePath, size: stored.size, sha256: stored.sha256, storage_key: key },
        this.#expiry(),
        uploadId,
      );
      if (outcome === 'closed') throw conflict(COMPLETED_MESSAGE);
      if (outcome === 'gone') throw notFound('Upload not found');
      added = true;
    } finally {
      if (!added) {
        await this.storage.delete(key);
        await this.pending.end(key);
      }
    }
  }

  /**
   * A bundle of the delivery's files arrived whole (in a local file, the tus store's), through a
   * request that checked the actor's access: its members are read and checked (readBundle: 422
   * naming a member whose path a file sent alone would be refused, or that is not a file), the
   * bundle is moved into storage as one object, and every member becomes a file of the delivery at
   * its path, a range of that object, all in the one transaction that ends the upload's record
   * (`uploadId`): all of them or none. 422 when a path is taken by a file already there or
   * arriving alone; 409 once the delivery was completed or removed meanwhile. `sha256`: the
   * bundle's, when it was taken as the bytes arrived.
   */
  async addBundle(uploadId: string, input: { deliveryId: number; path: string; size: number; sha256?: string }): Promise<void> {
    const { members, sha256 } = await readBundle(input.path, input.size, input.sha256);
    const key = newUploadKey();
    await this.pending.begin(key, this.options.uploadLeaseMs);
    let added = false;
    try {
      // Durable as it is stored, unlike a small file sent alone: one sync per bundle of up to
      // 16 MiB costs little, overlaps with the other bundles still arriving, and leaves completion
      // nothing to wait for (its one sync of everything dirty took seconds on a busy disk).
      const stored = await this.#store({ from: 'file', path: input.path, sha256, size: input.size }, key, { durable: true });
      if (stored.size !== input.size) throw unprocessable('The bundle ended with a different size than announced; send it again');
      const rows = members.map((m) => ({ delivery_id: input.deliveryId, relative_path: m.relativePath, size: m.size, sha256: m.sha256, storage_key: key, storage_offset: m.offset }));
      const outcome = await this.deliveries.addBundle(rows, { size: input.size, sha256 }, this.#expiry(), uploadId).catch((err: unknown) => this.#explainBundleFailure(input.deliveryId, members, err));
      if (outcome === 'closed') throw conflict(COMPLETED_MESSAGE);
      if (outcome === 'gone') throw notFound('Upload not found');
      if (typeof outcome === 'object') throw pathTaken(outcome.taken);
      added = true;
    } finally {
      if (!added) {
        await this.storage.delete(key);
        await this.pending.end(key);
      }
    }
  }

  /**
   * A delivery's bytes by the byte rules every upload passes (uploads/arriving-bytes.ts): size
   * limit, SHA-256 once, durability as asked; no content check, as a folder holds what it holds.
   */
  #store(bytes: ArrivingBytes, key: string, opts: { durable: boolean }) {
    return storeArriving(bytes, { storage: this.storage, key, maxBytes: this.options.maxUploadBytes, durable: opts.durable });
  }

  /**
   * Recording a bundle failed: when a file of another bundle or one sent alone took one of its
   * paths at the same moment, the database's unique index refused it, which is then told so (422).
   */
  async #explainBundleFailure(deliveryId: number, members: readonly { relativePath: string }[], err: unknown): Promise<never> {
    for (const member of members) if (await this.deliveries.pathTaken(deliveryId, member.relativePath)) throw pathTaken(member.relativePath);
    throw err;
  }

  /**
   * A file of the delivery is arriving whole in one request of this process (tus/tus-direct.ts), after
   * authorizeFile: until the answer `done` is called, completion answers 409 as for any file still
   * arriving, and the expiry sweep leaves the delivery alone.
   */
  beginArrival(deliveryId: number): () => void {
    this.#arrivingHere.set(deliveryId, (this.#arrivingHere.get(deliveryId) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const left = (this.#arrivingHere.get(deliveryId) ?? 1) - 1;
      if (left > 0) this.#arrivingHere.set(deliveryId, left);
      else this.#arrivingHere.delete(deliveryId);
    };
  }

  /** Files of the delivery arriving whole in requests of this process (beginArrival). */
  arrivingHere(deliveryId: number): number {
    return this.#arrivingHere.get(deliveryId) ?? 0;
  }

  /**
   * A file that arrived whole (beginArrival was called for it): recorded at its path first, in a
   * transaction shared with the other files arriving at the same moment, then its local file is
   * moved into storage, not synced (completion syncs a delivery's files at once). In that order a
   * crash leaves at worst a member without its object, which completion finds and names (409,
   * 'send it again'), and never an object no row points to. 409 once the delivery was completed or
   * removed, 422 when its path was taken meanwhile; nothing of the file is kept then.
   */
  async addWholeFile(file: WholeFile): Promise<void> {
    const member = { delivery_id: file.deliveryId, relative_path: file.relativePath, size: file.size, sha256: file.sha256, storage_key: newUploadKey() };
    let outcome: 'added' | 'closed';
    try {
      outcome = await this.#members.add(member).catch((err: unknown) => this.explainRecordingFailure(file.deliveryId, file.relativePath, err));
    } catch (err) {
      await rm(file.path, { force: true });
      throw err;
    }
    if (outcome === 'closed') {
      await rm(file.path, { force: true });
      throw conflict(COMPLETED_MESSAGE);
    }
    try {
      await this.#store({ from: 'file', path: file.path, sha256: file.sha256, size: file.size }, member.storage_key, { durable: false });
    } catch (err) {
      await this.deliveries.removeMemberByKey(member.storage_key);
      await rm(file.path, { force: true });
      throw err;
    }
  }

  /**
   * Closes the delivery: 409 while a file of it is still arriving (finish or cancel it first) or
   * when it holds no file; then it becomes one row of the project's files, with one job.
   */
  async complete(actor: Actor, id: number): Promise<TDelivery> {
    const { delivery, project } = await this.#requireRow(actor, id);
    if (!can(actor, 'create', project.company_id)) throw forbidden();
    if (delivery.state !== 'open') throw conflict('This delivery is already complete');
    const arriving = (await this.deliveries.arriving(delivery.id)) + this.arrivingHere(delivery.id);
    if (arriving > 0) {
      throw conflict(
        `${arriving} file${arriving === 1 ? ' of this delivery is' : 's of this delivery are'} still arriving; ` +
          'let them finish (or cancel them) and complete the delivery again',
      );
    }
    const members = await this.deliveries.members(delivery.id);
    if (members.length === 0) throw conflict('This delivery has no files yet; send its files first, then complete it');
    await this.#makeDurable(members);
    const row = await this.deliveries.complete(delivery, {
      filesize: members.reduce((sum, m) => sum + Number(m.size), 0),
      sha256: manifestHash(members),
    });
    if (!row) throw conflict('This delivery is already complete');
    await this.uploads.recordUpload(row, 'delivery');
    await this.uploads.recordReplaced(row);
    await this.events.emit('delivery.completed', row);
    return presentDelivery(await this.#require(actor, id));
  }

  /** The files of a completed delivery shown as `file` (whose access the caller checked), by path. */
  async filesOf(file: ProjectFileRow): Promise<FolderFile[]> {
    // The files as they arrived were deleted once de-identified (processing/process-delivery.job.ts).
    if (file.deid_outcome !== null) return (await this.deliveries.keptInstancesOf(file.id)).map((entry) => ({ ...entry, created_at: file.created_at }));
    return this.deliveries.membersOfFile(file.id);
  }

  /**
   * Removes open deliveries past their expiry with everything they hold: their unfinished uploads
   * (through `removeUpload`), their files' objects, then their records. Answers how many.
   */
  async sweepExpired(removeUpload: (uploadId: string) => Promise<void>): Promise<number> {
    let removed = 0;
    for (const id of await this.deliveries.expired()) {
      // A file arriving right now renews the expiry as it is recorded.
      if (this.#arrivingHere.has(id)) continue;
      for (const upload of await this.deliveries.uploadsOf(id)) await removeUpload(upload);
      // A bundle's files share its object: each object is removed once, before its rows.
      const removedKeys = new Set<string>();
      for (const member of await this.deliveries.members(id)) {
        if (!removedKeys.has(member.storage_key)) await this.storage.delete(member.storage_key);
        removedKeys.add(member.storage_key);
        await this.deliveries.removeMember(member.id);
      }
      await this.deliveries.removeBundles(id);
      if (await this.deliveries.removeOpen(id)) removed += 1;
    }
    return removed;
  }

  /**
   * The one durability point of a delivery's files sent alone, before its row can appear: each file arrived
   * without an fsync of its own (one per file was most of a small file's cost), so all are synced
   * here in one go. A file a crash of the machine took since it arrived is dropped, and completion
   * refused, so that the sender sends it again rather than the delivery showing it damaged.
   */
  async #makeDurable(members: readonly DeliveryFileRow[]): Promise<void> {
    // Each object once, with the size its files need: a file alone is its whole object, a bundle's
    // files end within theirs.
    const objects = new Map<string, { size: number; alone: boolean; members: DeliveryFileRow[] }>();
    for (const member of members) {
      const end = Number(member.storage_offset ?? 0) + Number(member.size);
      const object = objects.get(member.storage_key) ?? { size: 0, alone: member.storage_offset === null, members: [] };
      object.size = Math.max(object.size, end);
      object.members.push(member);
      objects.set(member.storage_key, object);
    }
    const keys = [...objects.keys()];
    const lost: DeliveryFileRow[] = [];
    for (let at = 0; at < keys.length; at += STAT_BATCH) {
      const batch = keys.slice(at, at + STAT_BATCH);
      const stored = await Promise.all(batch.map((key) => this.storage.stat(key)));
      batch.forEach((key, i) => {
        const object = objects.get(key)!;
        const size = stored[i]?.size;
        if (size === undefined || (object.alone ? size !== object.size : size < object.size)) {
          lost.push(...object.members);
        }
      });
    }
    for (const member of lost) {
      // One delete per object is enough; a repeated one finds nothing and succeeds.
      if (objects.delete(member.storage_key)) await this.storage.delete(member.storage_key);
      await this.deliveries.removeMember(member.id);
    }
    if (lost.length > 0) await this.deliveries.removeBundles(lost[0]!.delivery_id, { unused: true });
    if (lost.length > 0) {
      const some = lost.slice(0, 3).map((m) => `"${m.relative_path}"`).join(', ');
      throw conflict(
        `${lost.length} file${lost.length === 1 ? ' of this delivery was' : 's of this delivery were'} lost when the server stopped ` +
          `(${some}${lost.length > 3 ? ' and others' : ''}); send ${lost.length === 1 ? 'it' : 'them'} again, then complete the delivery`,
      );
    }
    // Bundles were made durable as they were stored; files sent alone were not.
    if (members.some((m) => m.storage_offset === null)) await this.storage.flush();
  }

  async #require(actor: Actor, id: number): Promise<DeliveryWithTotals> {
    const { delivery } = await this.#requireRow(actor, id);
    return { ...delivery, ...(await this.deliveries.totals(delivery.id)) };
  }

  async #requireRow(actor: Actor, id: number): Promise<{ delivery: DeliveryRow; project: ProjectRow }> {
    const delivery = await this.deliveries.findRow(id, companyScope(actor));
    if (!delivery || !reachesProject(actor, delivery.project_id)) throw notFound(NOT_FOUND);
    // Reading another company's delivery needs reading its project: the same 404 or 403.
    const project = await this.projects.require(actor, delivery.project_id, 'read');
    return { delivery, project };
  }

  #expiry(): Date {
    return new Date(Date.now() + this.options.expiryMs);
  }
}

/** The delivery's content in one SHA-256: each file's path and SHA-256, in path order. */
function manifestHash(members: readonly { relative_path: string; sha256: string }[]): string {
  const hash = createHash('sha256');
  for (const m of members) hash.update(`${m.sha256}  ${m.relative_path}\n`);
  return hash.digest('hex');
}
