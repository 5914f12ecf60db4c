// What the server-side de-identification tests share: a real DICOM file carrying planted identity
// (written by dcmtk, so no code of ours shapes it), and a project set to the basic profile with the
// key its own company's users receive (to compute the pseudonyms the server must give).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { TAR_END, tarMemberHeader, tarPadding } from '@portal/contract';
import { expect } from 'vitest';
import type { CompanyRow } from '../src/db/schema.js';
import { makeProject } from './factories.js';
import { call } from './http.js';
import type { TestServer } from './server.js';
import { FIXTURES } from './uploads.js';

/** The values a test plants: each must be found nowhere once the server has processed the file. */
export interface PlantedIdentity {
  name: string;
  id: string;
  nestedId: string;
  privateCreator: string;
  privateValue: string;
}

/** A fixture with identity at the top level, in OtherPatientIDsSequence and in a private tag. */
export function plantIdentity(scratch: string, fixture: string, planted: PlantedIdentity): Buffer {
  const file = path.join(scratch, `planted-${fixture}`);
  fs.copyFileSync(path.join(FIXTURES, 'dicom', fixture), file);
  execFileSync('dcmodify', [
    '-nb',
    '-i', `(0010,0010)=${planted.name}`,
    '-i', `(0010,0020)=${planted.id}`,
    '-i', `(0010,1002)[0].(0010,0020)=${planted.nestedId}`,
    '-i', `(0009,0010)=${planted.privateCreator}`,
    '-i', `(0009,1001)=${planted.privateValue}`,
    file,
  ]);
  return fs.readFileSync(file);
}

/** A new project of `company` set to the basic profile by a SysAdmin, and its key as the company's user gets it. */
export async function basicProject(
  server: TestServer,
  company: CompanyRow,
  tokens: { admin: string; user: string },
): Promise<{ id: number; key: Uint8Array }> {
  const project = await makeProject(server.services, company);
  const put = await call(`${server.api}/study-petitions/${project.id}/deidentification`, { method: 'PUT', token: tokens.admin, json: { profile: 'basic', options: [] } });
  expect(put.status).toBe(200);
  const keyAnswer = await call(`${server.api}/study-petitions/${project.id}/deidentification/key`, { token: tokens.user });
  return { id: project.id, key: new Uint8Array(Buffer.from(keyAnswer.body.data[0].key as string, 'base64url')) };
}

/** A delivery's tar bundle of `files` (path → bytes), as the web app packs one. */
export function tarBundle(files: Record<string, Buffer>): Buffer {
  const parts: Uint8Array[] = [];
  for (const [p, data] of Object.entries(files)) parts.push(tarMemberHeader({ path: p, size: data.length, mtimeMs: 1_700_000_000_000 }), data, tarPadding(data.length));
  parts.push(TAR_END);
  return Buffer.concat(parts);
}
