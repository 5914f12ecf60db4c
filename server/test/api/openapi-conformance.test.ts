// Every route's answers against the OpenAPI document it serves. The checks are read from the
// document alone: each answer's status must be listed for its operation, its content type must be
// one the document gives for that status (and an answer documented without content has no body),
// every header the document marks required must be there, and a JSON body must validate against
// the documented schema (ajv, the validator Fastify itself uses). The requests are of two kinds:
// a sweep made from the document (no token, ids that name nothing, bodies that are not what the
// route reads, a query parameter sent twice), and a scenario that makes every operation succeed
// once. An operation of the document, or a route of the app, that was not answered at least once
// with success and (where the document lists any) once with a client error fails the test: a new
// route needs a line in the scenario.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { DEFAULT_REVIEW_RULES, ROLES } from '@portal/contract';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../src/db/schema.js';
import { dialects } from '../databases.js';
import { makeCompany, makeProject, makeUser, PASSWORD } from '../factories.js';
import { login } from '../http.js';
import { startTestProvider, type TestProvider } from '../oidc-provider.js';
import { registeredApiRoutes } from '../registered-routes.js';
import { startTestServer, type TestServer } from '../server.js';
import { MiniBrowser, signInAtProvider } from '../sso-browser.js';
import { encodeMetadata } from '../tus.js';
import { dicomFixture } from '../uploads.js';

interface Header {
  required?: boolean;
}
interface Response {
  description: string;
  headers?: Record<string, Header>;
  content?: Record<string, { schema: object }>;
}
interface Operation {
  parameters?: { in: string; name: string; required?: boolean }[];
  requestBody?: { content: Record<string, { schema: object }> };
  responses: Record<string, Response>;
  security?: unknown[];
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
}

interface Validator {
  (data: unknown): boolean;
  errors?: unknown[] | null;
}
// The ajv Fastify validates with (a dependency of its own, so none is added here): found from
// fastify's own place, not from this package's, whose nearest ajv is ESLint's older one.
const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
const fromCompiler = createRequire(fromFastify.resolve('@fastify/ajv-compiler'));
const Ajv = fromCompiler('ajv') as new (options: object) => { compile(schema: object): Validator };
// OpenAPI 3.0 schemas: `nullable` is ajv's own extension, formats are descriptive here.
const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
const validators = new WeakMap<object, Validator>();
function validatorOf(schema: object): Validator {
  let validator = validators.get(schema);
  if (!validator) validators.set(schema, (validator = ajv.compile(schema)));
  return validator;
}

const API = '/api/v1';
const TUS = { 'tus-resumable': '1.0.0' };
const TUS_BYTES = { ...TUS, 'content-type': 'application/offset+octet-stream' };

interface Request {
  token?: string;
  query?: Record<string, string | string[]>;
  json?: unknown;
  body?: RequestInit['body'];
  headers?: Record<string, string>;
}
interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the scenario reads ids out of answers
  json: any;
}

const mediaType = (headers: Headers) => headers.get('content-type')?.split(';')[0]!.trim().toLowerCase();

describe.each(dialects())('every answer against the OpenAPI document on %s', (dialect) => {
  let server: TestServer;
  let doc: Document;
  let provider: TestProvider;
  /** Per operation: the statuses it answered. */
  const answered = new Map<string, Set<number>>();
  const problems: string[] = [];

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as const));

  /** Checks one answer of `route` against the document; what is wrong is collected, not thrown, so one run shows all. */
  function check(route: string, op: Operation, method: string, answer: Answer): void {
    const shown = /json|text/.test(mediaType(answer.headers) ?? '') ? answer.text.slice(0, 160) : `(${mediaType(answer.headers)})`;
    const what = `${route} → ${answer.status} ${shown}`;
    const response = op.responses[String(answer.status)] ?? op.responses.default;
    if (!response) return void problems.push(`${what}: status not in the document`);
    const type = mediaType(answer.headers);
    const content = response.content;
    if (!content || method === 'HEAD') {
      if (answer.text !== '') problems.push(`${what}: a body where the document has none`);
    } else if (!type || !content[type]) {
      problems.push(`${what}: content type ${type} is not one of ${Object.keys(content).join(', ')}`);
    } else if (type === 'application/json') {
      const validate = validatorOf(content[type].schema);
      if (!validate(answer.json)) problems.push(`${what}: body does not match the documented schema: ${JSON.stringify(validate.errors)}`);
    }
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      if (header.required && answer.headers.get(name) === null) problems.push(`${what}: required header ${name} missing`);
    }
  }

  /** Sends `route` ('PATCH /uploads/{id}') with its path parameters filled in, checks the answer and records its status. */
  async function send(route: string, params: Record<string, string | number> = {}, request: Request = {}): Promise<Answer> {
    const [method, template] = route.split(' ') as [string, string];
    const op = doc.paths[template]?.[method.toLowerCase()];
    if (!op) throw new Error(`${route} is not in the document`);
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(params[name])));
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(request.query ?? {})) for (const one of [value].flat()) search.append(name, one);
    const headers: Record<string, string> = { ...request.headers };
    if (request.token) headers.authorization = `Bearer ${request.token}`;
    let body = request.body;
    if (request.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(request.json);
    }
    const url = `${server.url}${API}${path}${search.size ? `?${search.toString()}` : ''}`;
    const response = await fetch(url, { method, headers, body, redirect: 'manual' });
    const text = method === 'HEAD' ? '' : await response.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON: checked by its content type.
    }
    const answer = { status: response.status, headers: response.headers, text, json };
    check(route, op, method, answer);
    answered.set(route, (answered.get(route) ?? new Set()).add(answer.status));
    return answer;
  }

  let company: CompanyRow;
  let sysToken: string;
  let adminToken: string;
  let userToken: string;

  beforeAll(async () => {
    server = await startTestServer(dialect, { METRICS_TOKEN: 'metrics-token-for-the-conformance-test-0123456789' }, { jobs: true });
    doc = (await (await fetch(`${server.api}/openapi.json`)).json()) as Document;
    provider = await startTestProvider([{ client_id: 'portal', client_secret: 'conformance-secret', redirect_uris: [`${server.api}/sso/callback`] }]);
    company = await makeCompany(server.services, `Conformance ${dialect}`);
    sysToken = await login(server.api, (await makeUser(server.services, { role: ROLES.SysAdmin })).username, PASSWORD);
    adminToken = await login(server.api, (await makeUser(server.services, { company, role: ROLES.CompanyAdmin })).username, PASSWORD);
    userToken = await login(server.api, (await makeUser(server.services, { company })).username, PASSWORD);
  });
  afterAll(async () => {
    await provider?.close();
    await server?.close();
  });

  it('describes every registered API route', () => {
    expect(operations().map(([route]) => route).sort()).toEqual(registeredApiRoutes(server.app, API).sort());
  });

  it('answers requests made from the document alone with what the document lists', async () => {
    for (const [route, op] of operations()) {
      const [method] = route.split(' ') as [string];
      const params = Object.fromEntries((op.parameters ?? []).filter((p) => p.in === 'path').map((p) => [p.name, 'x']));
      const tokenFor = route.includes('/admin/') || route.endsWith('/metrics') ? sysToken : adminToken;
      if (op.security) await send(route, params, {});
      if (Object.keys(params).length) await send(route, params, { token: tokenFor, headers: TUS });
      for (const query of (op.parameters ?? []).filter((p) => p.in === 'query')) {
        await send(route, params, { token: tokenFor, query: { [query.name]: ['1', '2'] } });
      }
      const bodyTypes = Object.keys(op.requestBody?.content ?? {});
      if (bodyTypes.includes('application/json')) {
        await send(route, params, { token: tokenFor, json: { not_a_field: [] } });
        await send(route, params, { token: tokenFor, body: '{"unfinished', headers: { 'content-type': 'application/json' } });
        await send(route, params, { token: tokenFor, body: '<not-json/>', headers: { 'content-type': 'application/xml' } });
      } else if (bodyTypes.length) {
        await send(route, params, { token: tokenFor, body: 'not what it reads', headers: { ...TUS, 'content-type': 'text/plain' } });
      }
      if (method === 'GET' && !op.security) await send(route, params, { token: 'not-a-session' });
      // A call that needs nothing more than a session (a list, the settings, tus's OPTIONS) is made as it is.
      if (!Object.keys(params).length && !op.requestBody && method !== 'POST') await send(route, params, { token: tokenFor, headers: TUS });
    }
    expect(problems.join('\n')).toBe('');
  });

  it('says what is wrong with a query parameter sent twice', async () => {
    const twice = await send('GET /sso/callback', {}, { query: { iss: ['https://a.example', 'https://b.example'], state: 's' } });
    expect(twice.status).toBe(400);
    expect(twice.json).toEqual({ message: 'Send iss once' });
    const company = await send('GET /sso/{companyId}/start', { companyId: 'abc' });
    expect(company.status).toBe(404);
    expect(problems.join('\n')).toBe('');
  });

  it('answers the calls of a working session with what the document lists', async () => {
    // Public, and the session itself.
    await send('GET /health');
    await send('GET /ready');
    await send('GET /openapi.json');
    const person = await makeUser(server.services, { company });
    await send('POST /login', {}, { json: { username: person.username, password: 'Wr0ng!Password' } });
    const session = (await send('POST /login', {}, { json: { username: person.username, password: PASSWORD } })).json.token as string;
    await send('GET /me', {}, { token: session });
    await send('POST /password_reset', {}, { token: session, json: { userid: person.id, old_password: PASSWORD, new_password: 'short' } });
    await send('POST /password_reset', {}, { token: session, json: { userid: person.id, old_password: PASSWORD, new_password: 'N3w!Passw0rd-conf' } });
    await send('POST /logout', {}, { token: session });
    await send('POST /password/forgot', {}, { json: { username: person.username } });
    const link = (await send('POST /admin/users/{id}/reset-password', { id: person.id }, { token: adminToken })).json.data[0].reset_url as string;
    const resetToken = new URL(link, server.url).hash.replace('#token=', '');
    await send('POST /password/link', {}, { json: { token: resetToken } });
    await send('POST /password/set', {}, { json: { token: resetToken, new_password: 'short' } });
    await send('POST /password/set', {}, { json: { token: resetToken, new_password: 'An0ther!Passw0rd' } });
    await send('POST /password/set', {}, { json: { token: resetToken, new_password: 'An0ther!Passw0rd' } });
    await send('POST /password/link', {}, { json: { token: resetToken } });
    await send('GET /company/{id}', { id: company.id }, { token: userToken });
    await send('GET /company/{id}', { id: 999_999 }, { token: userToken });

    // Projects.
    await send('GET /study-petitions', {}, { token: userToken });
    await send('GET /study-petitions', {}, { token: sysToken, query: { q: 'cohort', sort: 'files', order: 'desc', page: '1', per_page: '5' } });
    await send('GET /study-petitions', {}, { token: userToken, query: { sort: 'size' } });
    await send('GET /study-petitions-companies', {}, { token: sysToken });
    await send('GET /study-petitions-companies');
    const project = (await send('POST /study-petitions', {}, { token: adminToken, json: { name: 'Conformance cohort' } })).json.data[0].id as number;
    await send('POST /study-petitions', {}, { token: adminToken, json: { name: '' } });
    await send('GET /study-petitions/{id}', { id: project }, { token: userToken });
    await send('PUT /study-petitions/{id}', { id: project }, { token: adminToken, json: { name: 'Conformance cohort, renamed' } });
    await send('PUT /study-petitions/{id}', { id: project }, { token: adminToken, json: { name: '' } });
    await send('GET /study-petitions/{id}/deidentification', { id: project }, { token: userToken });
    await send('PUT /study-petitions/{id}/deidentification', { id: project }, { token: sysToken, json: { profile: 'basic', options: ['retainUIDs'] } });
    await send('PUT /study-petitions/{id}/deidentification', { id: project }, { token: adminToken, json: { profile: 'off', options: [] } });
    await send('PUT /study-petitions/{id}/deidentification', { id: project }, { token: sysToken, json: { profile: 'off', options: [] } });
    await send('GET /study-petitions/{id}/deidentification/key', { id: project }, { token: userToken });
    await send('GET /study-petitions/{id}/deidentification/key', { id: project }, { token: sysToken });
    // Arrival rules (issue 35).
    await send('GET /study-petitions/{id}/rules', { id: project }, { token: userToken });
    await send('PUT /study-petitions/{id}/rules', { id: project }, { token: sysToken, json: { ...DEFAULT_REVIEW_RULES, modalities: ['CT'] } });
    await send('PUT /study-petitions/{id}/rules', { id: project }, { token: adminToken, json: DEFAULT_REVIEW_RULES });
    const doomed = await makeProject(server.services, company, 'To be deleted');
    await send('PUT /study-petitions-delete/{id}', { id: doomed.id }, { token: adminToken });
    await send('PUT /study-petitions-delete/{id}', { id: doomed.id }, { token: adminToken });

    // Uploads: multipart, then tus, then a delivery.
    const dicom = dicomFixture('s01_CT_small.dcm');
    const form = (name: string) => {
      const data = new FormData();
      data.append('studypetitionid', String(project));
      data.append('file', new Blob([new Uint8Array(dicom)]), name);
      return data;
    };
    const file = (await send('POST /upload-study-petitions-files', {}, { token: userToken, body: form('ct.dcm') })).json.data[0].id as number;
    await send('POST /upload-study-petitions-files', {}, { token: userToken, body: form('notes.exe') });
    const created = await send('POST /uploads', {}, {
      token: userToken,
      headers: { ...TUS, 'upload-length': String(dicom.length), 'upload-metadata': encodeMetadata({ filename: 'tus.dcm', studypetitionid: String(project) }) },
    });
    const upload = created.headers.get('location')!.split('/').pop()!;
    await send('POST /uploads', {}, { token: userToken, headers: { ...TUS, 'upload-length': String(dicom.length), 'upload-metadata': encodeMetadata({ filename: 'tus.dcm' }) } });
    await send('HEAD /uploads/{id}', { id: upload }, { token: userToken, headers: TUS });
    await send('PATCH /uploads/{id}', { id: upload }, { token: userToken, headers: { ...TUS_BYTES, 'upload-offset': '7' }, body: new Uint8Array(dicom.subarray(0, 10)) });
    await send('PATCH /uploads/{id}', { id: upload }, { token: userToken, headers: { ...TUS_BYTES, 'upload-offset': '0' }, body: new Uint8Array(dicom.subarray(0, 1000)) });
    await send('PATCH /uploads/{id}', { id: upload }, { token: userToken, headers: { ...TUS_BYTES, 'upload-offset': '1000' }, body: new Uint8Array(dicom.subarray(1000)) });
    const cancelled = (
      await send('POST /uploads', {}, { token: userToken, headers: { ...TUS, 'upload-length': '100', 'upload-metadata': encodeMetadata({ filename: 'c.dcm', studypetitionid: String(project) }) } })
    ).headers.get('location')!.split('/').pop()!;
    await send('DELETE /uploads/{id}', { id: cancelled }, { token: userToken, headers: TUS });
    await send('DELETE /uploads/{id}', { id: cancelled }, { token: userToken, headers: TUS });
    await send('GET /upload-settings', {}, { token: userToken });

    const delivery = (await send('POST /deliveries', {}, { token: userToken, json: { studypetitionid: project, name: 'CD export' } })).json.data[0].id as number;
    await send('POST /deliveries', {}, { token: userToken, json: { studypetitionid: project, name: '' } });
    await send('POST /uploads', {}, {
      token: userToken,
      headers: { ...TUS_BYTES, 'upload-length': String(dicom.length), 'upload-metadata': encodeMetadata({ filename: 'IM1', delivery: String(delivery), relativePath: 'DICOM/IM1' }) },
      body: new Uint8Array(dicom),
    });
    await send('GET /deliveries/{id}', { id: delivery }, { token: userToken });
    const folder = (await send('POST /deliveries/{id}/complete', { id: delivery }, { token: userToken })).json.data[0].file_id as number;
    await send('POST /deliveries/{id}/complete', { id: delivery }, { token: userToken });

    // Files, their contents and downloads.
    await send('GET /study-petitions-files', {}, { token: userToken, query: { study_petition_id: String(project) } });
    await send('POST /study-petitions/{id}/files/duplicates', { id: project }, { token: userToken, json: { sha256: [createHash('sha256').update(dicom).digest('hex')] } });
    await send('POST /study-petitions/{id}/files/duplicates', { id: project }, { token: userToken, json: { sha256: ['not a hash'] } });
    await send('GET /study-petitions-files', {}, { token: userToken, query: { study_petition_id: String(project), per_page: '0' } });
    let entries: { id: number }[] = [];
    for (let i = 0; i < 300 && entries.length === 0; i += 1) {
      entries = ((await send('GET /study-petitions-files/{fileId}/contents', { fileId: file }, { token: userToken })).json.data?.entries ?? []) as { id: number }[];
      if (entries.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await send('GET /study-petitions-files/{fileId}/contents', { fileId: file }, { token: userToken, query: { limit: '100000' } });
    // The review (issue 35): once the rules judged the file, a decision and the inbox.
    for (let i = 0; i < 300; i += 1) {
      const listed = (await send('GET /study-petitions-files', {}, { token: userToken, query: { study_petition_id: String(project) } })).json.data as { id: number; review: { state: string | null } }[];
      if (listed.find((f) => f.id === file)?.review.state) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await send('POST /study-petitions-files/{fileId}/review', { fileId: file }, { token: sysToken, json: { decision: 'reject', reason: { code: 'other', text: 'Conformance' } } });
    await send('POST /study-petitions-files/{fileId}/review', { fileId: file }, { token: userToken, json: { decision: 'accept' } });
    await send('GET /review', {}, { token: sysToken, query: { q: 'ct', state: 'rejected' } });
    await send('GET /review', {}, { token: userToken });
    await send('GET /study-petitions/{id}/studies', { id: project }, { token: userToken });
    await send('GET /study-petitions/{id}/studies', { id: project }, { token: userToken, query: { sort: 'nothing' } });
    // DICOMweb: each search and both stores, answered in DICOM JSON, and a refusal of each kind.
    const dicomweb = '/study-petitions/{id}/dicomweb';
    const found = (await send(`GET ${dicomweb}/studies`, { id: project }, { token: userToken })).json as Record<string, { Value?: string[] }>[];
    const study = found[0]?.['0020000D']?.Value?.[0] ?? '';
    await send(`GET ${dicomweb}/studies`, { id: project }, { token: userToken, query: { NoSuchKey: 'x' } });
    await send(`GET ${dicomweb}/series`, { id: project }, { token: userToken });
    await send(`GET ${dicomweb}/instances`, { id: project }, { token: userToken });
    await send(`GET ${dicomweb}/studies/{study}/series`, { id: project, study }, { token: userToken });
    const series = ((await send(`GET ${dicomweb}/studies/{study}/instances`, { id: project, study }, { token: userToken })).json as Record<string, { Value?: string[] }>[])[0]?.['0020000E']?.Value?.[0] ?? '';
    await send(`GET ${dicomweb}/studies/{study}/series/{series}/instances`, { id: project, study, series }, { token: userToken });
    await send(`GET ${dicomweb}/studies/{study}/series/{series}/instances`, { id: project, study, series }, { token: userToken, headers: { accept: 'text/html' } });
    // WADO-RS: each retrieval, its metadata, frames and bulk data, and a refusal of each.
    const instance = ((await send(`GET ${dicomweb}/studies/{study}/series/{series}/instances`, { id: project, study, series }, { token: userToken })).json as Record<string, { Value?: string[] }>[])[0]?.['00080018']?.Value?.[0] ?? '';
    const uids = { id: project, study, series, instance };
    for (const level of [`${dicomweb}/studies/{study}`, `${dicomweb}/studies/{study}/series/{series}`, `${dicomweb}/studies/{study}/series/{series}/instances/{instance}`]) {
      await send(`GET ${level}`, uids, { token: userToken });
      await send(`GET ${level}`, uids, { token: userToken, headers: { accept: 'multipart/related; type="application/dicom"; transfer-syntax=1.2.3' } });
      await send(`GET ${level}/metadata`, uids, { token: userToken });
      await send(`GET ${level}/metadata`, { ...uids, study: '1.2.3' }, { token: userToken });
    }
    // The series' thumbnail (issue 34): asked until it is made (202 meanwhile), then 304 for its ETag, and a series not there.
    for (const thumbnail of ['/study-petitions/{id}/studies/{study}/series/{series}/thumbnail', `${dicomweb}/studies/{study}/series/{series}/thumbnail`]) {
      let answer = await send(`GET ${thumbnail}`, uids, { token: userToken });
      for (let i = 0; i < 300 && answer.status === 202; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        answer = await send(`GET ${thumbnail}`, uids, { token: userToken });
      }
      await send(`GET ${thumbnail}`, uids, { token: userToken, headers: { 'if-none-match': answer.headers.get('etag') ?? '' } });
      await send(`GET ${thumbnail}`, { ...uids, series: '1.2.3' }, { token: userToken });
    }
    const frames = `${dicomweb}/studies/{study}/series/{series}/instances/{instance}/frames/{frames}`;
    await send(`GET ${frames}`, { ...uids, frames: '1' }, { token: userToken, headers: { accept: 'multipart/related; type=application/octet-stream; transfer-syntax=*' } });
    await send(`GET ${frames}`, { ...uids, frames: '1' }, { token: userToken, headers: { accept: 'image/png' } });
    await send(`GET ${frames}`, { ...uids, frames: '9' }, { token: userToken });
    const bulk = `${dicomweb}/studies/{study}/series/{series}/instances/{instance}/bulkdata/{attribute}`;
    await send(`GET ${bulk}`, { ...uids, attribute: '7FE00010' }, { token: userToken });
    await send(`GET ${bulk}`, { ...uids, attribute: '00091001' }, { token: userToken });
    const related = (boundary: string) => Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Type: application/dicom\r\n\r\n`), dicom, Buffer.from(`\r\n--${boundary}--\r\n`)]);
    const stow = (boundary: string) => ({ token: userToken, headers: { 'content-type': `multipart/related; type="application/dicom"; boundary=${boundary}` }, body: related(boundary) });
    await send(`POST ${dicomweb}/studies`, { id: project }, stow('conformance1'));
    await send(`POST ${dicomweb}/studies`, { id: project }, { token: userToken, json: {} });
    await send(`POST ${dicomweb}/studies/{study}`, { id: project, study }, stow('conformance2'));
    await send(`POST ${dicomweb}/studies/{study}`, { id: project, study }, { token: userToken, json: {} });
    const download = '/download-study-petitions-files/{id}';
    const etag = (await send(`GET ${download}`, { id: file }, { token: userToken })).headers.get('etag')!;
    await send(`GET ${download}`, { id: file }, { token: userToken, headers: { range: 'bytes=0-99' } });
    await send(`GET ${download}`, { id: file }, { token: userToken, headers: { 'if-none-match': etag } });
    await send(`GET ${download}`, { id: file }, { token: userToken, headers: { range: `bytes=${dicom.length + 10}-` } });
    await send(`GET ${download}`, { id: folder }, { token: userToken });
    const entry = '/study-petitions-files/{fileId}/contents/{entryId}/download';
    await send(`GET ${entry}`, { fileId: file, entryId: entries[0]!.id }, { token: userToken });
    await send(`GET ${entry}`, { fileId: file, entryId: entries[0]!.id }, { token: userToken, headers: { range: 'bytes=10-19' } });
    await send(`GET ${entry}`, { fileId: file, entryId: 999_999 }, { token: userToken });
    await send('GET /download-links/settings', {}, { token: userToken });
    const ticket = (await send('POST /download-links', {}, { token: userToken, json: { file_id: folder } })).json.data[0].url as string;
    await send('POST /download-links', {}, { token: userToken, json: { file_id: 999_999 } });
    const ticketId = ticket.split('/').pop()!;
    await send('GET /dl/{ticket}', { ticket: ticketId });
    await send('GET /dl/{ticket}', { ticket: ticketId });
    const removable = (await send('POST /upload-study-petitions-files', {}, { token: userToken, body: form('removed.dcm') })).json.data[0].id as number;
    await send('PUT /study-petitions-files-delete/{id}', { id: removable }, { token: adminToken });
    await send('PUT /study-petitions-files-delete/{id}', { id: removable }, { token: userToken });

    // Administration.
    await send('GET /admin/companies', {}, { token: sysToken });
    const other = (await send('POST /admin/companies', {}, { token: sysToken, json: { companyname: `Other ${dialect}` } })).json.data[0].id as number;
    await send('POST /admin/companies', {}, { token: adminToken, json: { companyname: 'Not allowed' } });
    await send('PUT /admin/companies/{id}', { id: other }, { token: sysToken, json: { companyname: `Other ${dialect}, renamed` } });
    await send('GET /admin/users', {}, { token: adminToken });
    const user = (
      await send('POST /admin/users', {}, { token: adminToken, json: { username: `made_${dialect}_${process.pid}`, firstname: 'Made', lastname: 'Here', role: ROLES.User, password: PASSWORD } })
    ).json.data[0].id as number;
    await send('POST /admin/users', {}, { token: adminToken, json: { username: `made_${dialect}_${process.pid}`, firstname: 'Made', lastname: 'Again', role: ROLES.User, password: PASSWORD } });
    await send('PUT /admin/users/{id}', { id: user }, { token: adminToken, json: { firstname: 'Changed' } });
    await send('GET /admin/password-requests', {}, { token: adminToken });
    await send('GET /admin/password-requests', {}, { token: userToken });
    await send('GET /admin/audit', {}, { token: adminToken });
    const csv = await send('GET /admin/audit', {}, { token: adminToken, query: { format: 'csv' } });
    expect(mediaType(csv.headers)).toBe('text/csv');
    await send('GET /metrics', {}, { token: sysToken });
    // Notifications: a user's e-mails, webhook endpoints and their log (an event nothing here announces).
    await send('GET /me/notifications', {}, { token: userToken });
    await send('PUT /me/notifications', {}, { token: userToken, json: { events: ['upload.processed'], mode: 'daily' } });
    await send('PUT /me/notifications', {}, { token: userToken, json: { events: ['delivery.completed'], mode: 'daily', all_projects: true } });
    const hook = (await send('POST /admin/webhooks', {}, { token: adminToken, json: { url: 'https://93.184.215.14/hook', events: ['delivery.rejected'] } })).json.data[0].id as number;
    await send('POST /admin/webhooks', {}, { token: adminToken, json: { url: 'https://127.0.0.1/hook', events: ['delivery.rejected'] } });
    await send('GET /admin/webhooks', {}, { token: adminToken });
    await send('GET /admin/webhooks', {}, { token: userToken });
    await send('GET /admin/webhooks/{id}/deliveries', { id: hook }, { token: adminToken });
    await send('DELETE /admin/webhooks/{id}', { id: hook }, { token: adminToken });
    await send('GET /metrics', {}, { token: userToken });
    // Personal API tokens (issue 37): made, listed, revoked, and refused where a token's scope ends.
    const inMonth = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    const made = (await send('POST /tokens', {}, { token: userToken, json: { name: 'Conformance', expires_at: inMonth, scope: 'read' } })).json.data[0] as { id: number; token: string };
    await send('POST /tokens', {}, { token: userToken, json: { name: 'Too long', expires_at: '2999-01-01', scope: 'read' } });
    await send('GET /tokens', {}, { token: userToken });
    await send('GET /tokens', {}, { token: userToken, query: { owner: 'all' } });
    await send('GET /tokens', {}, { token: adminToken, query: { owner: 'all' } });
    await send('GET /me', {}, { token: made.token });
    await send('DELETE /tokens/{id}', { id: made.id }, { token: userToken });
    await send('DELETE /tokens/{id}', { id: made.id }, { token: userToken });

    // Two-factor sign-in (issue 37), with codes of the real clock: the one after confirming is the next step's.
    const codeOf = (secret: string, stepsAhead = 0) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 * stepsAhead });
    const careful = await makeUser(server.services, { company });
    const carefulSession = await login(server.api, careful.username, PASSWORD);
    await send('GET /account/two-factor', {}, { token: carefulSession });
    const secret = (await send('POST /account/two-factor', {}, { token: carefulSession })).json.data[0].secret as string;
    await send('POST /account/two-factor/confirm', {}, { token: carefulSession, json: { code: 'abc' } });
    await send('POST /account/two-factor/confirm', {}, { token: carefulSession, json: { code: await codeOf(secret) } });
    await send('POST /account/two-factor', {}, { token: carefulSession });
    const challenge = (await send('POST /login', {}, { json: { username: careful.username, password: PASSWORD } })).json.challenge as string;
    await send('POST /login/second-factor', {}, { json: { challenge, code: await codeOf(secret, 1) } });
    await send('POST /login/second-factor', {}, { json: { challenge, code: '000000' } });
    await send('POST /account/two-factor/recovery-codes', {}, { token: carefulSession, json: { password: PASSWORD } });
    await send('POST /account/two-factor/recovery-codes', {}, { token: carefulSession, json: { password: 'Wr0ng!Password' } });
    await send('POST /account/two-factor/disable', {}, { token: carefulSession, json: { password: 'Wr0ng!Password' } });
    await send('POST /account/two-factor/disable', {}, { token: carefulSession, json: { password: PASSWORD } });
    await send('GET /admin/companies/{id}/two-factor', { id: company.id }, { token: adminToken });
    await send('PUT /admin/companies/{id}/two-factor', { id: company.id }, { token: adminToken, json: { required: true } });
    await send('PUT /admin/companies/{id}/two-factor', { id: 999_999 }, { token: adminToken, json: { required: true } });
    const enrolment = (await send('POST /login', {}, { json: { username: careful.username, password: PASSWORD } })).json.challenge as string;
    await send('POST /login/second-factor/enrolment', {}, { json: { challenge: 'x'.repeat(43) } });
    const newSecret = (await send('POST /login/second-factor/enrolment', {}, { json: { challenge: enrolment } })).json.data[0].secret as string;
    await send('POST /login/second-factor/enrolment/confirm', {}, { json: { challenge: enrolment, code: await codeOf(newSecret) } });
    await send('POST /login/second-factor/enrolment/confirm', {}, { json: { challenge: enrolment, code: '000000' } });
    await send('PUT /admin/companies/{id}/two-factor', { id: company.id }, { token: adminToken, json: { required: false } });
    await send('DELETE /admin/users/{id}/two-factor', { id: careful.id }, { token: adminToken });
    await send('DELETE /admin/users/{id}/two-factor', { id: careful.id }, { token: adminToken });

    // Single sign-on, through a real provider.
    const settings = { enabled: true, issuer: provider.issuer, client_id: 'portal', client_secret: 'conformance-secret', password_login_allowed: true, auto_create_users: true };
    await send('PUT /admin/companies/{id}/sso', { id: company.id }, { token: sysToken, json: settings });
    await send('PUT /admin/companies/{id}/sso', { id: company.id }, { token: sysToken, json: { ...settings, issuer: 'not a url' } });
    await send('GET /admin/companies/{id}/sso', { id: company.id }, { token: sysToken });
    await send('POST /sso/discover', {}, { json: { username: person.username } });
    await send('GET /sso/{companyId}/start', { companyId: company.id });
    await send('GET /sso/callback', {}, { query: { state: 'unknown', code: 'unknown' } });
    provider.accounts.set('conformance', { email: `sso.${dialect}@conformance.test`, email_verified: true, preferred_username: 'conformance', given_name: 'Sso', family_name: 'User' });
    const browser = new MiniBrowser();
    const returned = await signInAtProvider(browser, `${server.api}/sso/${company.id}/start`, 'conformance', `${server.api}/sso/callback`);
    const landing = (await browser.request(returned)).headers.get('location') ?? '';
    const code = /#sso=([\w-]+)$/.exec(landing)?.[1];
    expect(code, landing).toBeDefined();
    await send('POST /sso/complete', {}, { json: { code } });
    await send('POST /sso/complete', {}, { json: { code } });

    expect(problems.join('\n')).toBe('');
  });

  it('has answered every operation of the document with success and with an error', () => {
    const missing = operations()
      .map(([route]) => [route, [...(answered.get(route) ?? [])]] as const)
      .filter(([route, statuses]) => {
        const clientErrors = Object.keys(operations().find(([r]) => r === route)![1].responses).some((s) => s.startsWith('4'));
        return !statuses.some((s) => s < 400) || (clientErrors && !statuses.some((s) => s >= 400 && s < 500));
      })
      .map(([route, statuses]) => `${route} (answered ${statuses.join(', ') || 'nothing'})`);
    expect(missing).toEqual([]);
  });
});
