// Each project's de-identification key: 32 random bytes made at its first use, kept only sealed
// with the portal's secret key (the one that seals the single sign-on client secrets), bound to the
// project. Never replaced: every pseudonym, shifted date and replaced UID of the project is a keyed
// hash with it, so a new key would give the same patient another pseudonym.
import { randomBytes } from 'node:crypto';
import { AppError } from '../errors/app-error.js';
import type { SecretBox } from '../sso/index.js';
import type { DeidentificationRepository } from './deidentification.repository.js';

export const PROJECT_KEY_BYTES = 32;

const binding = (projectId: number) => `project-key:${projectId}`;

const UNREADABLE =
  'The de-identification key of this project cannot be opened: the portal’s secret key (SSO_SECRET_KEY, or sso-secret.key in DATA_DIR) is not the one it was sealed with. ' +
  'Ask the portal’s administrator to restore that key; until then nothing can be de-identified for this project.';

export class ProjectKeys {
  constructor(
    private readonly repo: DeidentificationRepository,
    private readonly box: SecretBox,
  ) {}

  async keyOf(projectId: number): Promise<Buffer> {
    let sealed = await this.repo.sealedKeyOf(projectId);
    if (sealed === undefined) {
      if (!(await this.repo.projectExists(projectId))) throw new Error(`no project ${projectId} to make a key for`);
      await this.repo.addSealedKey(projectId, this.box.sealBound(randomBytes(PROJECT_KEY_BYTES).toString('base64url'), binding(projectId)));
      // Whichever first use stored its key first, every caller gets that one.
      sealed = await this.repo.sealedKeyOf(projectId);
      if (sealed === undefined) throw new Error(`the key of project ${projectId} was stored but cannot be read back`);
    }
    let key: Buffer;
    try {
      key = Buffer.from(this.box.openBound(sealed, binding(projectId)), 'base64url');
    } catch {
      // Never a new key in its place: it would silently give every patient of the project another pseudonym.
      throw new AppError(500, UNREADABLE);
    }
    if (key.length !== PROJECT_KEY_BYTES) throw new AppError(500, UNREADABLE);
    return key;
  }
}
