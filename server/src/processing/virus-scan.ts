// The virus scan during processing (issue 37 item 4): every stored object (an upload, a delivery's
// file as it arrived) and every entry with bytes is streamed to clamd. Objects are scanned again by
// a rerun (their verdicts are held here); entries keep theirs in their rows, from which the file's
// state is read in the job's last transaction. A scanner that is down throws ScannerUnavailable:
// the job is retried with its backoff and the file says 'waiting' meanwhile.
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import type { TScanStatus } from '@portal/contract';
import type { Db } from '../db/database.js';
import type { EntriesRepository } from '../files/index.js';
import type { ScanSource, ScanVerdict, VirusScanner } from '../scanning/index.js';

/** The state a row records: what was found, or why it was not scanned. */
export interface ScanState {
  status: Exclude<TScanStatus, 'waiting'>;
  signature: string | null;
}

/** The audit record of an infected file, written in the job's last transaction. */
type InfectionEvent = { action: 'file.infected'; companyId: number; object: { type: string; id: number }; details: Record<string, string | number> };
export interface InfectionAudit {
  record(event: InfectionEvent): Promise<void>;
  recordIn(trx: Db, event: InfectionEvent): Promise<void>;
}

export interface ScanningDeps {
  /** clamd, when CLAMD_SOCKET or CLAMD_HOST is set; without it nothing is scanned ('not_scanned'). */
  scanner?: VirusScanner | undefined;
  audit?: InfectionAudit | undefined;
  files: { setScan(id: number, scan: { status: TScanStatus; signature: string | null }, db?: Db): Promise<void> };
  entries: Pick<EntriesRepository, 'scanFindings'>;
}

/** A file's bytes, or `size` of them from `offset`: opened only once clamd accepted the connection. */
export function bytesOf(file: string, offset = 0, size?: number): ScanSource {
  if (size === 0) return () => Readable.from([]);
  return () => createReadStream(file, size === undefined ? { start: offset } : { start: offset, end: offset + size - 1 });
}

function stateOf(verdict: ScanVerdict): ScanState {
  if (verdict.status === 'infected') return { status: 'infected', signature: verdict.signature };
  if (verdict.status === 'not_scanned') return { status: 'not_scanned', signature: verdict.reason };
  return { status: 'clean', signature: null };
}

/** A job gave up before its scan was written: most often clamd stayed down, but the server may have failed. */
export const SCANNER_GAVE_UP =
  'Not scanned: processing stopped before the virus scan finished (the virus scanner could not be reached, or the server failed). Upload the file again later, or ask your administrator.';

export class ScanSession {
  readonly #objects: ScanState[] = [];

  private constructor(private readonly deps: ScanningDeps) {}

  /** Starts a file's scan: with a scanner the row says 'waiting' until the job's last transaction. */
  static async begin(deps: ScanningDeps, fileId: number): Promise<ScanSession> {
    if (deps.scanner) await deps.files.setScan(fileId, { status: 'waiting', signature: null });
    return new ScanSession(deps);
  }

  get enabled(): boolean {
    return this.deps.scanner !== undefined;
  }

  /** A stored object as a whole (clamd opens archives too): its verdict counts for the file. */
  async object(source: ScanSource): Promise<ScanState | null> {
    const state = await this.entry(source);
    if (state) this.#objects.push(state);
    return state;
  }

  /** An entry's bytes; null without a scanner (the row then says it was never scanned). */
  async entry(source: ScanSource): Promise<ScanState | null> {
    if (!this.deps.scanner) return null;
    return stateOf(await this.deps.scanner.scan(source));
  }

  /**
   * In the job's last transaction, after its last rows: the file's state (infected if the object
   * or any entry is, else not scanned if any was not, else clean), audited once when infected.
   * Answers the count of infected entries for the summary; undefined without a scanner.
   */
  async finish(trx: Db | undefined, file: { id: number; company_id: number; file: string; scan_status: string }): Promise<number | undefined> {
    if (!this.deps.scanner) return undefined;
    const found = await this.deps.entries.scanFindings(file.id, trx);
    const infectedObject = this.#objects.find((s) => s.status === 'infected');
    const notScanned = this.#objects.find((s) => s.status === 'not_scanned');
    let state: ScanState = { status: 'clean', signature: null };
    if (infectedObject) state = infectedObject;
    else if (found.infected > 0) state = { status: 'infected', signature: found.signature };
    else if (notScanned) state = notScanned;
    else if (found.notScanned !== null) state = { status: 'not_scanned', signature: found.notScanned };
    await this.deps.files.setScan(file.id, state, trx);
    if (state.status === 'infected' && file.scan_status !== 'infected' && this.deps.audit) {
      const event: InfectionEvent = {
        action: 'file.infected',
        companyId: file.company_id,
        object: { type: 'file', id: file.id },
        details: { file: file.file, signature: state.signature ?? '', infected_entries: found.infected },
      };
      await (trx ? this.deps.audit.recordIn(trx, event) : this.deps.audit.record(event));
    }
    return found.infected;
  }
}
