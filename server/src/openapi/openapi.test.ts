// The served document against the app itself: the routes Fastify actually registered (read from
// its own route table, not from the document generator) must all be described, with their path and
// query parameters, and every JSON answer and body must be the contract's schema, so neither the
// routes nor the contract can move without the document following.
import {
  ZCompanyTwoFactor,
  ZDuplicate,
  ZDuplicatesRequest,
  ZEnrolmentConfirmAtLoginRequest,
  ZEnrolmentStartRequest,
  ZLoginWithRecoveryCodes,
  ZRecoveryCodes,
  ZSecondStepRequest,
  ZTwoFactorConfirmRequest,
  ZTwoFactorProof,
  ZTwoFactorSetup,
  ZTwoFactorStatus,
  ZUpdateCompanyTwoFactor,
  ZApiToken,
  ZCreateApiToken,
  ZCreatedApiToken,
  ZCreatedWebhook,
  ZCreateWebhook,
  ZNotificationPreferences,
  ZUpdateNotificationPreferences,
  ZWebhook,
  ZWebhookDeliveriesList,
  listResponse,
  ZReviewDecision,
  ZReviewList,
  ZReviewRules,
  ZAdminUser,
  ZAuditList,
  ZCompaniesList,
  ZCreateCompany,
  ZUpdateCompany,
  ZCreateUser,
  ZMessageResponse,
  ZPasswordForgotRequest,
  ZPasswordRequestsList,
  ZPasswordSetRequest,
  ZResetLinkResponse,
  ZUpdateUser,
  ZUsersList,
  ZCompany,
  ZCreateDelivery,
  ZCreateDownloadLink,
  ZCreateProject,
  ZDelivery,
  ZDownloadLink,
  ZDownloadSettings,
  ZUploadSettings,
  ZErrorBody,
  ZFileContentsResponse,
  ZFilesList,
  ZLoginRequest,
  ZLoginResponse,
  ZPasswordResetRequest,
  ZPasswordResetResponse,
  ZProject,
  ZProjectCompany,
  ZProjectsList,
  ZPasswordLinkRequest,
  ZPasswordLinkResponse,
  ZProjectFile,
  ZProjectStudies,
  ZUpdateProject,
  ZUser,
  ZDeidentificationPolicy,
  ZProjectKey,
  ZSsoCompleteRequest,
  ZUpdateDeidentificationPolicy,
  ZSsoDiscoverRequest,
  ZSsoDiscoverResponse,
  ZSsoSettings,
  ZUpdateSsoSettings,
} from '@portal/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z, type ZodType } from 'zod';
import { dialects } from '../../test/databases.js';
import { call } from '../../test/http.js';
import { PUBLIC_ROUTES as PUBLIC } from '../../test/public-routes.js';
import { registeredApiRoutes } from '../../test/registered-routes.js';
import { startTestServer, type TestServer } from '../../test/server.js';

interface Operation {
  parameters?: { in: string; name: string; required?: boolean }[];
  requestBody?: { content: Record<string, { schema: object }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: object }> }>;
  security?: unknown[];
}
interface Document {
  openapi: string;
  servers: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
}

/** The 2xx answer of every route that answers JSON, as the contract defines it. */
const ANSWERS: Record<string, ZodType> = {
  'POST /login': ZLoginResponse,
  'GET /me': listResponse(ZUser),
  'POST /password_reset': ZPasswordResetResponse,
  'GET /company/{id}': listResponse(ZCompany),
  'GET /study-petitions': ZProjectsList,
  'GET /study-petitions-companies': listResponse(ZProjectCompany),
  'POST /study-petitions': listResponse(ZProject),
  'GET /study-petitions/{id}': listResponse(ZProject),
  'PUT /study-petitions/{id}': listResponse(ZProject),
  'PUT /study-petitions-delete/{id}': listResponse(ZProject),
  'GET /study-petitions/{id}/deidentification': listResponse(ZDeidentificationPolicy),
  'PUT /study-petitions/{id}/deidentification': listResponse(ZDeidentificationPolicy),
  'GET /study-petitions/{id}/deidentification/key': listResponse(ZProjectKey),
  'GET /study-petitions/{id}/rules': listResponse(ZReviewRules),
  'PUT /study-petitions/{id}/rules': listResponse(ZReviewRules),
  'POST /study-petitions-files/{fileId}/review': listResponse(ZProjectFile),
  'GET /review': ZReviewList,
  'GET /study-petitions-files': ZFilesList,
  'POST /study-petitions/{id}/files/duplicates': listResponse(ZDuplicate),
  'POST /upload-study-petitions-files': listResponse(ZProjectFile),
  'PUT /study-petitions-files-delete/{id}': listResponse(ZProjectFile),
  'GET /study-petitions-files/{fileId}/contents': ZFileContentsResponse,
  'GET /study-petitions/{id}/studies': ZProjectStudies,
  'POST /deliveries': listResponse(ZDelivery),
  'GET /deliveries/{id}': listResponse(ZDelivery),
  'POST /deliveries/{id}/complete': listResponse(ZDelivery),
  'POST /download-links': listResponse(ZDownloadLink),
  'GET /download-links/settings': listResponse(ZDownloadSettings),
  'GET /upload-settings': listResponse(ZUploadSettings),
  'POST /password/set': ZMessageResponse,
  'POST /password/link': ZPasswordLinkResponse,
  'POST /password/forgot': ZMessageResponse,
  'GET /admin/companies': ZCompaniesList,
  'POST /admin/companies': listResponse(ZCompany),
  'PUT /admin/companies/{id}': listResponse(ZCompany),
  'GET /admin/users': ZUsersList,
  'POST /admin/users': listResponse(ZAdminUser),
  'PUT /admin/users/{id}': listResponse(ZAdminUser),
  'POST /admin/users/{id}/reset-password': ZResetLinkResponse,
  'GET /admin/password-requests': ZPasswordRequestsList,
  'GET /admin/audit': ZAuditList,
  'POST /sso/discover': ZSsoDiscoverResponse,
  'POST /sso/complete': ZLoginResponse,
  'GET /admin/companies/{id}/sso': listResponse(ZSsoSettings),
  'PUT /admin/companies/{id}/sso': listResponse(ZSsoSettings),
  'GET /me/notifications': listResponse(ZNotificationPreferences),
  'PUT /me/notifications': listResponse(ZNotificationPreferences),
  'GET /admin/webhooks': listResponse(ZWebhook),
  'POST /admin/webhooks': listResponse(ZCreatedWebhook),
  'GET /admin/webhooks/{id}/deliveries': ZWebhookDeliveriesList,
  'GET /tokens': listResponse(ZApiToken),
  'POST /tokens': listResponse(ZCreatedApiToken),
  'POST /login/second-factor': ZLoginResponse,
  'POST /login/second-factor/enrolment': listResponse(ZTwoFactorSetup),
  'POST /login/second-factor/enrolment/confirm': ZLoginWithRecoveryCodes,
  'GET /account/two-factor': listResponse(ZTwoFactorStatus),
  'POST /account/two-factor': listResponse(ZTwoFactorSetup),
  'POST /account/two-factor/confirm': listResponse(ZRecoveryCodes),
  'POST /account/two-factor/disable': listResponse(ZTwoFactorStatus),
  'POST /account/two-factor/recovery-codes': listResponse(ZRecoveryCodes),
  'GET /admin/companies/{id}/two-factor': listResponse(ZCompanyTwoFactor),
  'PUT /admin/companies/{id}/two-factor': listResponse(ZCompanyTwoFactor),
};

/** The JSON bodies routes read, as the contract defines them. */
const BODIES: Record<string, ZodType> = {
  'POST /login': ZLoginRequest,
  'POST /password_reset': ZPasswordResetRequest,
  'POST /study-petitions': ZCreateProject,
  'PUT /study-petitions/{id}': ZUpdateProject,
  'PUT /study-petitions/{id}/deidentification': ZUpdateDeidentificationPolicy,
  'PUT /study-petitions/{id}/rules': ZReviewRules,
  'POST /study-petitions-files/{fileId}/review': ZReviewDecision,
  'POST /deliveries': ZCreateDelivery,
  'POST /study-petitions/{id}/files/duplicates': ZDuplicatesRequest,
  'POST /download-links': ZCreateDownloadLink,
  'POST /password/set': ZPasswordSetRequest,
  'POST /password/link': ZPasswordLinkRequest,
  'POST /password/forgot': ZPasswordForgotRequest,
  'POST /admin/companies': ZCreateCompany,
  'PUT /admin/companies/{id}': ZUpdateCompany,
  'POST /admin/users': ZCreateUser,
  'PUT /admin/users/{id}': ZUpdateUser,
  'POST /sso/discover': ZSsoDiscoverRequest,
  'POST /sso/complete': ZSsoCompleteRequest,
  'PUT /admin/companies/{id}/sso': ZUpdateSsoSettings,
  'PUT /me/notifications': ZUpdateNotificationPreferences,
  'POST /admin/webhooks': ZCreateWebhook,
  'POST /tokens': ZCreateApiToken,
  'POST /login/second-factor': ZSecondStepRequest,
  'POST /login/second-factor/enrolment': ZEnrolmentStartRequest,
  'POST /login/second-factor/enrolment/confirm': ZEnrolmentConfirmAtLoginRequest,
  'POST /account/two-factor/confirm': ZTwoFactorConfirmRequest,
  'POST /account/two-factor/disable': ZTwoFactorProof,
  'POST /account/two-factor/recovery-codes': ZTwoFactorProof,
  'PUT /admin/companies/{id}/two-factor': ZUpdateCompanyTwoFactor,
};

/** The query parameters routes read. */
const QUERIES: Record<string, string[]> = {
  'GET /study-petitions': ['company_id', 'q', 'order', 'page', 'per_page', 'sort'],
  'GET /study-petitions-files': ['study_petition_id', 'q', 'order', 'page', 'per_page', 'sort', 'status', 'review'],
  'GET /review': ['q', 'order', 'page', 'per_page', 'state'],
  'GET /study-petitions/{id}/studies': ['q', 'order', 'page', 'per_page', 'sort'],
  'GET /study-petitions/{id}/dicomweb/studies': ['limit', 'offset', 'includefield', 'fuzzymatching'],
  'GET /study-petitions/{id}/dicomweb/series': ['limit', 'offset', 'includefield', 'fuzzymatching'],
  'GET /study-petitions/{id}/dicomweb/instances': ['limit', 'offset', 'includefield', 'fuzzymatching'],
  'GET /study-petitions/{id}/dicomweb/studies/{study}/series': ['limit', 'offset', 'includefield', 'fuzzymatching'],
  'GET /study-petitions/{id}/dicomweb/studies/{study}/instances': ['limit', 'offset', 'includefield', 'fuzzymatching'],
  'GET /study-petitions/{id}/dicomweb/studies/{study}/series/{series}/instances': ['limit', 'offset', 'includefield', 'fuzzymatching'],
  'GET /study-petitions-files/{fileId}/contents': ['offset', 'limit', 'kind', 'review'],
  'GET /admin/companies': ['q', 'order', 'page', 'per_page'],
  'GET /admin/users': ['q', 'order', 'page', 'per_page', 'company_id'],
  'GET /admin/password-requests': ['q', 'order', 'page', 'per_page', 'status'],
  'GET /admin/audit': ['from', 'to', 'actor', 'action', 'object', 'order', 'page', 'per_page', 'format'],
  'GET /admin/webhooks': ['company_id'],
  'GET /admin/webhooks/{id}/deliveries': ['page', 'per_page'],
  'GET /sso/callback': ['code', 'state', 'iss', 'error', 'error_description'],
  'GET /tokens': ['owner'],
};


const jsonSchema = (schema: ZodType, io: 'input' | 'output') => z.toJSONSchema(schema, { target: 'openapi-3.0', io });
/** The document repeats a schema's description at its root; the shape is the rest. */
const shape = (schema: object) => Object.fromEntries(Object.entries(schema).filter(([key]) => key !== 'description'));

describe.each(dialects())('the OpenAPI document on %s', (dialect) => {
  let server: TestServer;
  let doc: Document;
  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as const));

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const answer = await call<Document>(`${server.api}/openapi.json`);
    expect(answer.status).toBe(200);
    doc = answer.body;
  });
  afterAll(() => server.close());

  it('is served without a session, as OpenAPI 3.0 relative to /api/v1', () => {
    expect(doc.openapi).toBe('3.0.3');
    expect(doc.servers).toEqual([{ url: '/api/v1' }]);
  });

  it('describes every registered API route and nothing else, with its path and query parameters', () => {
    const api = registeredApiRoutes(server.app, '/api/v1');
    expect(api.length).toBeGreaterThanOrEqual(18);
    expect(operations().map(([route]) => route).sort()).toEqual([...api].sort());

    for (const [route, op] of operations()) {
      const params = (where: string) => (op.parameters ?? []).filter((p) => p.in === where);
      const inPath = [...route.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      expect(params('path').map((p) => [p.name, p.required]), route).toEqual(inPath.map((name) => [name, true]));
      expect(params('query').map((p) => p.name).sort(), route).toEqual([...(QUERIES[route] ?? [])].sort());
    }
  });

  it('documents each JSON answer and body as the contract’s schema, and every error as {message}', () => {
    const answered = new Set<string>();
    for (const [route, op] of operations()) {
      for (const [status, response] of Object.entries(op.responses)) {
        const json = response.content?.['application/json']?.schema;
        if (!json) continue;
        if (status.startsWith('2') && ANSWERS[route]) {
          answered.add(route);
          expect(shape(json), `${route} ${status}`).toEqual(shape(jsonSchema(ANSWERS[route], 'output')));
        } else if (!PUBLIC.includes(route) || status !== '200') {
          expect(json, `${route} ${status}`).toMatchObject({ type: 'object', properties: { message: { type: 'string' } }, required: ['message'] });
        }
      }
      const body = op.requestBody?.content['application/json']?.schema;
      expect(body && shape(body), `${route} body`).toEqual(BODIES[route] && shape(jsonSchema(BODIES[route], 'input')));
    }
    expect([...answered].sort()).toEqual(Object.keys(ANSWERS).sort());
    expect(jsonSchema(ZErrorBody, 'output')).toMatchObject({ required: ['message'] });
  });

  it('asks for the bearer token, and documents its 401, on every route but the public ones', () => {
    for (const [route, op] of operations()) {
      if (PUBLIC.includes(route)) {
        expect(op.security, route).toBeUndefined();
        expect(op.responses['401']?.description ?? '', route).not.toMatch(/session/);
      } else {
        expect(op.security, route).toEqual([{ bearer: [] }]);
        expect(op.responses['401']?.description, route).toMatch(/session/);
      }
    }
  });

  it('documents the finding parameters of the files and studies tables with their values and limits', () => {
    const schemaOf = (path: string, name: string) =>
      (doc.paths[path]!.get!.parameters as unknown as { name: string; schema: Record<string, unknown> }[]).find((p) => p.name === name)!.schema;
    expect(schemaOf('/study-petitions-files', 'sort')).toEqual({ type: 'string', enum: ['file', 'filesize', 'created_at', 'updated_at'] });
    expect(schemaOf('/study-petitions/{id}/studies', 'sort')).toEqual({ type: 'string', enum: ['study_date', 'study_description', 'patient_name', 'instances'] });
    for (const path of ['/study-petitions-files', '/study-petitions/{id}/studies']) {
      expect(schemaOf(path, 'order')).toEqual({ type: 'string', enum: ['asc', 'desc'] });
      expect(schemaOf(path, 'per_page')).toMatchObject({ type: 'integer', minimum: 1, maximum: 500 });
      expect(schemaOf(path, 'q')).toMatchObject({ type: 'string', maxLength: 200 });
    }
  });

  it('documents the upload as a multipart form with the project before the file', () => {
    const upload = doc.paths['/upload-study-petitions-files']!.post!;
    const form = upload.requestBody!.content['multipart/form-data']!.schema as { properties: Record<string, object>; required: string[] };
    expect(Object.keys(form.properties)).toEqual(['studypetitionid', 'file', 'replaces']);
    expect(form.properties.file).toMatchObject({ type: 'string', format: 'binary' });
    expect(form.required).toEqual(['studypetitionid', 'file']);
  });

  it('documents STOW-RS answers as DICOM JSON (application/dicom+json), not as JSON errors', () => {
    for (const route of ['/study-petitions/{id}/dicomweb/studies', '/study-petitions/{id}/dicomweb/studies/{study}']) {
      const responses = doc.paths[route]!.post!.responses;
      for (const status of ['200', '202', '409']) expect(Object.keys(responses[status]!.content ?? {}), `${route} ${status}`).toEqual(['application/dicom+json']);
      expect(Object.keys(responses['415']!.content ?? {}), route).toEqual(['application/json']);
    }
  });
});
