// /api/v1/admin/…: companies (SysAdmin), users and password requests (SysAdmin, CompanyAdmin), the
// audit trail. Access is decided in the administration services, before anything is read.
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  listResponse,
  ZAdminUser,
  ZAuditList,
  ZAuditQuery,
  ZCompaniesList,
  ZCompaniesQuery,
  ZCompany,
  ZCreateCompany,
  ZUpdateCompany,
  ZCreateUser,
  ZPasswordRequestsList,
  ZPasswordRequestsQuery,
  ZResetLinkResponse,
  ZUpdateUser,
  ZUsersList,
  ZUsersQuery,
} from '@portal/contract';
import { z } from 'zod';
import { sessionOf } from '../auth/index.js';
import { zId } from '../http/params.js';
import { BAD_REQUEST, documentedHeaders, errorResponse, FORBIDDEN, NOT_FOUND } from '../http/responses.js';
import type { Services } from '../services.js';
import { auditFilter } from './audit-access.js';
import { CompaniesAdministration } from './companies-admin.service.js';
import { UsersAdministration } from './users-admin.service.js';

const CompanyParams = z.object({ id: zId('Company') });
const UserParams = z.object({ id: zId('User') });
const REFUSED = errorResponse('Not valid: the reason, in words');
/** A CSV download, streamed as it is read (not the route's JSON answer, so not serialised). */
function sendCsv(reply: FastifyReply, fileName: string, body: Readable): FastifyReply {
  return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${fileName}"`).send(body);
}

const actorOf = (request: FastifyRequest) => sessionOf(request).actor;

export function adminRoutes(services: Services) {
  const users = new UsersAdministration(services);
  const companies = new CompaniesAdministration(services);
  return (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/admin/companies',
      {
        schema: {
          summary: 'Companies (SysAdmin)',
          querystring: ZCompaniesQuery,
          response: { 200: ZCompaniesList.describe('One page of companies, by id'), 400: BAD_REQUEST, 403: FORBIDDEN },
        },
      },
      async (request) => companies.list(actorOf(request), request.query),
    );

    app.post(
      '/admin/companies',
      {
        schema: {
          summary: 'Create a company (SysAdmin)',
          body: ZCreateCompany,
          response: { 201: listResponse(ZCompany).describe('Created'), 400: BAD_REQUEST, 403: FORBIDDEN },
        },
      },
      async (request, reply) => reply.status(201).send({ data: [await companies.create(actorOf(request), request.body)] }),
    );

    app.put(
      '/admin/companies/:id',
      {
        schema: {
          summary: 'Rename a company, or set its storage allowance (quota_bytes, null: unlimited) (SysAdmin)',
          params: CompanyParams,
          body: ZUpdateCompany,
          response: { 200: listResponse(ZCompany).describe('Changed'), 400: BAD_REQUEST, 403: FORBIDDEN, 404: NOT_FOUND },
        },
      },
      async (request) => ({ data: [await companies.update(actorOf(request), request.params.id, request.body)] }),
    );

    app.get(
      '/admin/users',
      {
        schema: {
          summary: 'Users: a SysAdmin’s of every company (or of company_id), a CompanyAdmin’s of their own',
          querystring: z.object({ ...ZUsersQuery.shape, company_id: zId('Company').optional() }),
          response: { 200: ZUsersList.describe('One page of users, by id'), 400: BAD_REQUEST, 403: FORBIDDEN, 404: NOT_FOUND },
        },
      },
      async (request) => users.list(actorOf(request), request.query),
    );

    app.post(
      '/admin/users',
      {
        schema: {
          summary: 'Create a user (a CompanyAdmin: in their own company, roles User and CompanyAdmin)',
          body: ZCreateUser,
          response: {
            201: listResponse(ZAdminUser).describe('Created'),
            400: BAD_REQUEST,
            403: FORBIDDEN,
            404: NOT_FOUND,
            409: errorResponse('The username is taken'),
            422: REFUSED,
          },
        },
      },
      async (request, reply) => reply.status(201).send({ data: [await users.create(actorOf(request), request.body)] }),
    );

    app.put(
      '/admin/users/:id',
      {
        schema: {
          summary: 'Change a user’s names, e-mail, role, or disable them (signing them out everywhere)',
          params: UserParams,
          body: ZUpdateUser,
          response: { 200: listResponse(ZAdminUser).describe('Changed'), 400: BAD_REQUEST, 403: FORBIDDEN, 404: NOT_FOUND, 422: REFUSED },
        },
      },
      async (request) => ({ data: [await users.update(actorOf(request), request.params.id, request.body)] }),
    );

    app.post(
      '/admin/users/:id/reset-password',
      {
        schema: {
          summary: 'A single-use link for the user to set a new password (shown once; e-mailed too when SMTP is set up)',
          params: UserParams,
          response: { 200: ZResetLinkResponse.describe('The link and when it expires'), 403: FORBIDDEN, 404: NOT_FOUND, 422: REFUSED },
        },
      },
      async (request) => ({ data: [await users.resetLink(actorOf(request), request.params.id, `${request.protocol}://${request.host}`)] }),
    );

    app.get(
      '/admin/password-requests',
      {
        schema: {
          summary: '‘Forgot your password?’ requests (open ones by default); a reset link for the user resolves them',
          querystring: ZPasswordRequestsQuery,
          response: { 200: ZPasswordRequestsList.describe('One page, newest first'), 400: BAD_REQUEST, 403: FORBIDDEN },
        },
      },
      async (request) => users.passwordRequests(actorOf(request), request.query),
    );

    app.get(
      '/admin/audit',
      {
        schema: {
          summary: 'The audit trail (SysAdmin: all; CompanyAdmin: their company’s), newest first; format=csv streams every match as CSV, oldest first',
          querystring: ZAuditQuery,
          response: {
            200: {
              description: 'One page of rows; with format=csv every match, as an attachment',
              headers: documentedHeaders({ 'Content-Disposition': { description: 'With format=csv: attachment; filename="audit.csv"' } }),
              content: { 'application/json': { schema: ZAuditList }, 'text/csv': { schema: z.string().describe('RFC 4180, a header row first') } },
            },
            400: BAD_REQUEST,
            403: FORBIDDEN,
          },
        },
      },
      async (request, reply) => {
        const filter = auditFilter(actorOf(request), request.query);
        if (request.query.format !== 'csv') return services.audit.list(filter, request.query);
        return sendCsv(reply, 'audit.csv', services.audit.csv(filter));
      },
    );
  };
}
