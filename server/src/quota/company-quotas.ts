// A company's storage allowance (quota_bytes), checked before any byte of an upload is stored, on
// every path (the multipart call, tus creation, a delivery's files and bundles). Uploads still
// arriving count with what they announced, so uploads side by side cannot together pass the
// allowance: each is admitted while holding its company's turn, and records its announced size
// (a tus row, a pending upload) before the next is weighed.
import { AppError } from '../errors/app-error.js';
import { describeBytes } from './bytes.js';
import type { QuotaRepository } from './quota.repository.js';

export class QuotaExceededError extends AppError {
  constructor(used: number, inFlight: number, quota: number, size: number) {
    const arriving = inFlight > 0 ? ` (and ${describeBytes(inFlight)} more is being uploaded)` : '';
    super(
      413,
      `Your company has used ${describeBytes(used)} of its ${describeBytes(quota)} storage allowance${arriving}, so this upload of ` +
        `${describeBytes(size)} does not fit. Delete files your company no longer needs, or ask the portal’s administrator for a larger allowance.`,
    );
    this.name = 'QuotaExceededError';
  }
}

/** Whose allowance an upload is weighed against: its project's company, or a company named outright. */
export type QuotaTarget = { projectId: number } | { companyId: number };

export class CompanyQuotas {
  /** Per company, the end of the last admission: the next one waits for it (this process). */
  readonly #turns = new Map<number, Promise<unknown>>();

  constructor(
    private readonly repo: QuotaRepository,
    /** A new company's allowance (DEFAULT_COMPANY_QUOTA_BYTES); null: unlimited. */
    readonly defaultQuotaBytes: number | null = null,
  ) {}

  /** Stored bytes of each company (live files only). */
  usedBytes(companyIds: readonly number[]): Promise<Map<number, number>> {
    return this.repo.usedBytes(companyIds);
  }

  /**
   * Admits an upload of `bytes` into the target's company (413 when it does not fit), then runs
   * `hold` with the company, which records the upload so that later checks count it (with null
   * for a company without allowance). An unknown project passes: access is checked, and answered, elsewhere.
   */
  async admit<T>(target: QuotaTarget, bytes: number, hold: (companyId: number | null) => Promise<T>): Promise<T> {
    const allowance = 'projectId' in target ? await this.repo.allowanceOfProject(target.projectId) : await this.repo.allowanceOfCompany(target.companyId);
    // Unlimited: nothing to hold against (null), so the upload's record stays the cheapest one.
    if (!allowance || allowance.quotaBytes === null) return hold(null);
    const { companyId, quotaBytes } = allowance;
    const before = this.#turns.get(companyId) ?? Promise.resolve();
    const turn = before.then(async () => {
      const { used: kept, inFlight } = await this.repo.usage(companyId);
      if (kept + inFlight + bytes > quotaBytes) throw new QuotaExceededError(kept, inFlight, quotaBytes, bytes);
      return hold(companyId);
    });
    const settled = turn.catch(() => undefined);
    this.#turns.set(companyId, settled);
    void settled.then(() => {
      if (this.#turns.get(companyId) === settled) this.#turns.delete(companyId);
    });
    return turn;
  }
}
