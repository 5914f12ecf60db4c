// The companies' single sign-on client secrets, the projects' de-identification keys and the users'
// authenticator secrets are sealed with SSO_SECRET_KEY or, unset, with the key file in DATA_DIR
// (sso/secret-box.ts). Rows copied without that key would never open again.
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config/config.js';
import type { Db } from '../../db/database.js';
import { KEY_FILE_NAME } from '../../sso/index.js';
import { MoveError } from './move-error.js';

function readKey(file: string): Buffer | undefined {
  if (!fs.existsSync(file)) return undefined;
  return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
}

/**
 * Before anything is copied: the key the target will use must be the one the old install sealed
 * with. With no SSO_SECRET_KEY the key file goes along into the target's DATA_DIR. Answers a line
 * for the report, or null when no secret is sealed.
 */
export async function carrySsoKey(source: { db: Db; dataDir: string }, config: Pick<Config, 'dataDir' | 'sso'>): Promise<string | null> {
  const sealed =
    (await source.db.selectFrom('company_sso').select('company_id').where('client_secret_enc', 'is not', null).executeTakeFirst()) ??
    (await source.db.selectFrom('project_keys').select('project_id').executeTakeFirst()) ??
    (await source.db.selectFrom('user_second_factors').select('user_id').executeTakeFirst());
  if (sealed === undefined) return null;
  const key = readKey(path.join(source.dataDir, KEY_FILE_NAME));
  if (key === undefined) {
    // The old install ran with SSO_SECRET_KEY: the operator carries that setting over.
    return 'The companies’ single sign-on secrets and the projects’ de-identification keys were sealed with the old install’s SSO_SECRET_KEY: give the new servers the same one.';
  }
  if (config.sso.secretKey !== undefined) {
    if (!config.sso.secretKey.equals(key)) {
      throw new MoveError(
        `SSO_SECRET_KEY is not the key the old install sealed its single sign-on secrets with (the one in ${KEY_FILE_NAME} of the old DATA_DIR), which seals its projects’ de-identification keys too: set SSO_SECRET_KEY to that file's content, or unset it, and run the move again.`,
      );
    }
    return null;
  }
  const target = path.join(config.dataDir, KEY_FILE_NAME);
  const existing = readKey(target);
  if (existing !== undefined && !existing.equals(key)) {
    throw new MoveError(`The target DATA_DIR already holds a different ${KEY_FILE_NAME}: it belongs to another install. Give the move an empty DATA_DIR.`);
  }
  if (existing === undefined) fs.copyFileSync(path.join(source.dataDir, KEY_FILE_NAME), target, fs.constants.COPYFILE_EXCL);
  fs.chmodSync(target, 0o600);
  return `The single sign-on key (${KEY_FILE_NAME}) was copied into the new DATA_DIR. Several API nodes must share it: set SSO_SECRET_KEY on each to that file's content. It seals the projects’ de-identification keys too.`;
}
