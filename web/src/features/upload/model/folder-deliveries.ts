import { mapApiError, type UserFacingError } from '../../../lib/error-mapping';
import type { BundleFile } from '../api/bundle';
import { signatureOf } from '../api/bundle';
import { pathInFolder, type DeliveryApi } from '../api/deliveries';
import { deliveryKey, localDeliveryMemory, type DeliveryMemory } from '../api/delivery-memory';
import type { UploadRow } from './upload-row';

/** A folder's delivery while its files go: its id, and the files that arrived in it before a reload. */
export interface OpenDelivery {
  id: number;
  key: string;
  arrivedBefore: ReadonlySet<string>;
}

export function bundleFileOf(row: UploadRow): BundleFile {
  return { file: row.file, path: pathInFolder(row.path) };
}

/** True when this row's file arrived in the delivery before the page was reloaded. */
export function arrivedBefore(delivery: OpenDelivery, row: UploadRow): boolean {
  return delivery.arrivedBefore.has(signatureOf([bundleFileOf(row)]));
}

/**
 * The deliveries of the folders in the dialog: opened once per folder (or, after a reload, the one
 * the same folder was going into, while the server still has it open), remembered while open,
 * completed once every file still wanted has arrived.
 */
export class FolderDeliveries {
  private readonly open = new Map<string, OpenDelivery>();
  private readonly opening = new Set<string>();

  constructor(
    private readonly projectId: number,
    private readonly api: DeliveryApi,
    private readonly memory: DeliveryMemory = localDeliveryMemory,
  ) {}

  get(folder: string): OpenDelivery | undefined {
    return this.open.get(folder);
  }

  isOpening(folder: string): boolean {
    return this.opening.has(folder);
  }

  /** Opens (or finds again) the delivery of a folder whose files are all the rows given. */
  async ensure(folder: string, rows: readonly UploadRow[]): Promise<OpenDelivery> {
    this.opening.add(folder);
    try {
      const key = deliveryKey(this.projectId, folder, rows.map(bundleFileOf));
      const known = this.memory.recall(key);
      let delivery: OpenDelivery;
      if (known && (await this.api.isOpen(known.id))) {
        delivery = { id: known.id, key, arrivedBefore: new Set(known.arrived) };
      } else {
        if (known) this.memory.forget(key);
        const id = await this.api.open(this.projectId, folder);
        this.memory.remember(key, id);
        delivery = { id, key, arrivedBefore: new Set() };
      }
      this.open.set(folder, delivery);
      return delivery;
    } finally {
      this.opening.delete(folder);
    }
  }

  arrived(folder: string, rows: readonly UploadRow[]): void {
    const delivery = this.open.get(folder);
    if (delivery) this.memory.markArrived(delivery.key, rows.map(bundleFileOf));
  }

  /**
   * Completes a delivery once `settled` has (the removal of a file left out of it: the server
   * refuses to complete a delivery while a file of it is still arriving). It is forgotten at once,
   * so nothing more is sent into it.
   */
  async complete(folder: string, settled: Promise<unknown> = Promise.resolve()): Promise<UserFacingError | null> {
    const delivery = this.open.get(folder);
    if (!delivery) return null;
    this.open.delete(folder);
    try {
      await settled;
      await this.api.complete(delivery.id);
      this.memory.forget(delivery.key);
      return null;
    } catch (error) {
      return mapApiError(error);
    }
  }

  folders(): string[] {
    return [...this.open.keys()];
  }
}
