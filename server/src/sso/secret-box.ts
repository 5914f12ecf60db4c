// The companies' client secrets and the projects' de-identification keys are kept encrypted
// (AES-256-GCM), each bound to its row so a ciphertext copied to another row does not open. The key
// is SSO_SECRET_KEY, or else a random key written on first use to DATA_DIR/sso-secret.key, readable
// by the portal's user only: a copy of the database alone does not reveal any secret.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const VERSION = 'v1';
export const KEY_FILE_NAME = 'sso-secret.key';

export class SecretBox {
  private key: Buffer | undefined;

  constructor(private readonly source: { key: Buffer | undefined; dataDir: string }) {}

  seal(plain: string, companyId: number): string {
    return this.sealBound(plain, `company:${companyId}`);
  }

  /** Throws when the key is not the one that sealed it (the key file was lost or replaced). */
  open(sealed: string, companyId: number): string {
    return this.openBound(sealed, `company:${companyId}`);
  }

  /**
   * For the portal's other secrets (a project's de-identification key): `binding` names the row it
   * belongs to, as the company does for a client secret, so a ciphertext moved to another row does
   * not open. Bindings of different kinds never look alike ('company:1', 'project-key:1').
   */
  sealBound(plain: string, binding: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keyBytes(), iv);
    cipher.setAAD(Buffer.from(binding));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  openBound(sealed: string, binding: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || body === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.keyBytes(), Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(binding));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }

  private keyBytes(): Buffer {
    this.key ??= this.source.key ?? readOrCreateKeyFile(path.join(this.source.dataDir, KEY_FILE_NAME));
    return this.key;
  }
}

function readOrCreateKeyFile(file: string): Buffer {
  if (!fs.existsSync(file)) {
    // Written aside and linked into place: a second process starting at the same moment either
    // links first or finds the whole file, never a half-written one.
    const draft = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(draft, randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
    try {
      fs.linkSync(draft, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      fs.rmSync(draft, { force: true });
    }
  }
  const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte key in base64`);
  return key;
}
