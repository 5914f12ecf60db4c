// Issue 12, item 11: file names as stored, through a real listening server, on SQLite and PostgreSQL.
import { parse as parseDisposition } from 'content-disposition';
import { ROLES, type TRole } from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../src/db/schema.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { login } from '../http.js';
import { startTestServer, type TestServer } from '../server.js';
import { dicomFixture, download, upload } from '../uploads.js';

const CT = dicomFixture('s01_CT_small.dcm');

describe.each(dialects())('upload hardening on %s', (dialect) => {
  let server: TestServer;
  let company: CompanyRow;
  const tokens = new Map<TRole, string>();
  const user = () => tokens.get(ROLES.User)!;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    company = await makeCompany(server.services);
    const u = await makeUser(server.services, { company, role: ROLES.User });
    tokens.set(ROLES.User, await login(server.api, u.username, PASSWORD));
  });
  afterAll(async () => {
    await server.close();
  });

  it('stores names without bidirectional or other invisible controls, and downloads them so (item 11)', async () => {
    const p = await makeProject(server.services, company);
    const names: [sent: string, stored: string][] = [
      ['report\u202Egpj.dcm', 'reportgpj.dcm'],
      ['\u200Fa\u200Eb\u202Ac\u202Bd\u202Ce\u202Df\u2066g\u2067h\u2068i\u2069j\u061C.dcm', 'abcdefghij.dcm'],
      ['zero\u200Bwidth\u2060joiner\uFEFF\u00AD.dcm', 'zerowidthjoiner.dcm'],
      ['c1\u0085\u009Bcontrols\u007F\u2028\u2029.dcm', 'c1controls.dcm'],
      ['tag\u{E0041}\u{E0042}chars.dcm', 'tagchars.dcm'],
      // Kept: Persian and emoji spellings need the joiners.
      ['\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645 \u{1F469}\u200D\u{1F4BB}.dcm', '\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645 \u{1F469}\u200D\u{1F4BB}.dcm'],
    ];
    for (const [sent, stored] of names) {
      const answer = await upload(server.api, user(), { name: sent, data: CT }, p.id);
      expect({ sent, status: answer.status, file: answer.body.data?.[0]?.file }).toEqual({ sent, status: 201, file: stored });
      const got = await download(server.api, user(), answer.body.data[0].id);
      expect(parseDisposition(got.headers.get('content-disposition')!).parameters.filename).toBe(stored);
    }
    // The extension is judged on what is shown: 'x<RLO>mcd.exe' looks like 'xexe.dcm' but is an .exe.
    const disguised = await upload(server.api, user(), { name: 'x\u202Emcd.exe', data: CT }, p.id);
    expect(disguised.status).toBe(415);
  });

});
