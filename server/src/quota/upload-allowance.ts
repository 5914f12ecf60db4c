// The one check every upload path calls before it stores a byte: room on the server's storage
// (MIN_FREE_BYTES), then room in the company's allowance (quota_bytes).
import type { CompanyQuotas, QuotaTarget } from './company-quotas.js';
import type { StorageHeadroom } from './storage-headroom.js';

export class UploadAllowance {
  constructor(
    readonly headroom: StorageHeadroom,
    readonly quotas: CompanyQuotas,
  ) {}

  /**
   * 507 when the server is low on storage (or would be, with `bytes` more), 413 when `bytes` more would pass the company's
   * allowance; otherwise runs `hold`, which records the upload (with its size) while no other
   * upload of the company is being weighed.
   */
  async admit<T>(target: QuotaTarget, bytes: number, hold: (companyId: number | null) => Promise<T>): Promise<T> {
    await this.headroom.requireRoom(bytes);
    return this.quotas.admit(target, bytes, hold);
  }
}
