// What every PATH of one run shares: the portal, the project, its de-identification, the output.
import path from 'node:path';
import type { TUploadSettings } from '@portal/contract';
import type { ProjectDeidentification } from './deidentification.js';
import type { LeftOut } from './made-parts.js';
import type { PortalApi } from './portal-api.js';
import type { Terminal } from './progress.js';
import { PathProgress, stateFileFor } from './state-file.js';

export interface Sent {
  /** The row's name: the folder's (a delivery) or the file's. */
  name: string;
  fileId: number;
  files: number;
  leftOut: LeftOut[];
}

export class Run {
  private chunk: Promise<number> | undefined;

  constructor(
    readonly api: PortalApi,
    readonly projectId: number,
    readonly deid: ProjectDeidentification,
    /** Progress and notes (standard error); results go to standard output. */
    readonly out: Terminal,
    private readonly stateFile: string | null = null,
  ) {}

  /** The state file of a PATH: the one given, or the one beside it. */
  progressOf(target: string): Promise<PathProgress> {
    return PathProgress.load(this.stateFile ?? stateFileFor(target), this.stateKey(target));
  }

  /** Made bytes differ by policy: a resume must find the upload of the same files made the same way. */
  get deidTag(): string {
    return this.deid.where === 'here' ? `:${this.deid.tag}` : '';
  }

  /** A PATH's entry in its state file: the same PATH sent to another portal or project is another upload. */
  stateKey(target: string): string {
    return JSON.stringify([this.api.base.origin + this.api.base.pathname, this.projectId, path.resolve(target)]);
  }

  /** The PATCH size the portal asks for (UPLOAD_CHUNK_BYTES), asked once. */
  chunkBytes(): Promise<number> {
    this.chunk ??= this.api.one<TUploadSettings>('GET', '/upload-settings', 'Reading the portal’s upload settings').then((s) => s.chunk_bytes);
    return this.chunk;
  }
}
