// The OpenAPI description served at /api/v1/openapi.json, built from the same zod schemas the
// server validates with, so it cannot drift from the code.
import {
  ZCompany,
  ZCreateProject,
  ZErrorBody,
  ZFileContents,
  ZLoginRequest,
  ZLoginResponse,
  ZPasswordResetRequest,
  ZProject,
  ZProjectFile,
  ZUpdateProject,
  ZUser,
} from '@portal/contract';
import { z, type ZodType } from 'zod';

const schema = (s: ZodType) => z.toJSONSchema(s, { target: 'openapi-3.0', unrepresentable: 'any' });
const json = (s: ZodType) => ({ 'application/json': { schema: schema(s) } });
const list = (s: ZodType) => json(z.object({ data: z.array(s) }));
const ok = (description: string, content?: object) => ({ description, ...(content ? { content } : {}) });
const error = (description: string) => ({ description, content: json(ZErrorBody) });
const idParam = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'integer', minimum: 1 } });

const tusHeader = (name: string, description: string, required = true) => ({ name, in: 'header', required, schema: { type: 'string' }, description });
const TUS_RESUMABLE = tusHeader('Tus-Resumable', '1.0.0');

const STANDARD_ERRORS = {
  '401': error('No session, or an expired, revoked or unknown token'),
  '404': error('Not found, or belongs to another company'),
};

function operation(summary: string, responses: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { summary, security: [{ bearer: [] }], responses: { ...responses, ...STANDARD_ERRORS }, ...extra };
}

export function openApiDocument(): object {
  return {
    openapi: '3.0.3',
    info: {
      title: 'Secure Upload Portal API',
      version: '1',
      description: 'Every error answers {message}. Another company’s ids answer 404, exactly like ids that do not exist.',
    },
    servers: [{ url: '/api/v1' }],
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    paths: {
      '/login': {
        post: {
          summary: 'Sign in',
          requestBody: { required: true, content: json(ZLoginRequest) },
          responses: {
            '200': ok('A session token and the user', json(ZLoginResponse)),
            '400': error('Malformed body'),
            '401': error('Invalid username or password (the same answer for unknown users)'),
            '429': error('Too many failed attempts; see Retry-After'),
          },
        },
      },
      '/logout': { post: operation('Revoke this session', { '204': ok('Signed out') }) },
      '/me': { get: operation('The signed-in user', { '200': ok('data[0] is the user', list(ZUser)) }) },
      '/password_reset': {
        post: operation(
          'Change a password (one’s own; a SysAdmin anyone’s, confirming with their own current password)',
          {
            '200': ok('Changed; the user’s other sessions are revoked', json(z.object({ data: z.object({ message: z.string() }) }))),
            '403': error('Not allowed to change this user’s password'),
            '422': error('Wrong current password, a weak new password, or the same password again'),
          },
          { requestBody: { required: true, content: json(ZPasswordResetRequest) } },
        ),
      },
      '/company/{id}': {
        get: operation('A company', { '200': ok('data[0] is the company', list(ZCompany)) }, { parameters: [idParam('id')] }),
      },
      '/study-petitions': {
        get: operation('Projects: the own company’s, or all for SysUser/SysAdmin', { '200': ok('Projects', list(ZProject)) }, {
          parameters: [{ name: 'company_id', in: 'query', required: false, schema: { type: 'integer' } }],
        }),
        post: operation(
          'Create a project',
          { '201': ok('Created', list(ZProject)), '403': error('Read-only role'), '422': error('Name missing or too long') },
          { requestBody: { required: true, content: json(ZCreateProject) } },
        ),
      },
      '/study-petitions/{id}': {
        get: operation('A project', { '200': ok('data[0] is the project', list(ZProject)) }, { parameters: [idParam('id')] }),
        put: operation(
          'Rename a project',
          { '200': ok('Renamed', list(ZProject)), '403': error('Read-only role'), '422': error('Name missing or too long') },
          { parameters: [idParam('id')], requestBody: { required: true, content: json(ZUpdateProject) } },
        ),
      },
      '/study-petitions-delete/{id}': {
        put: operation('Soft-delete a project', { '200': ok('Deleted', list(ZProject)), '403': error('Read-only role') }, {
          parameters: [idParam('id')],
        }),
      },
      '/study-petitions-files': {
        get: operation('Files of a project, with processing status and summary', { '200': ok('Files', list(ZProjectFile)) }, {
          parameters: [{ name: 'study_petition_id', in: 'query', required: true, schema: { type: 'integer' } }],
        }),
      },
      '/upload-study-petitions-files': {
        post: operation(
          'Upload one file (multipart fields `file` and `studypetitionid`, either order), streamed to storage',
          {
            '201': ok('Stored; processing is queued', list(ZProjectFile)),
            '400': error('Missing field, or the upload was interrupted'),
            '403': error('Read-only role'),
            '413': error('Over MAX_UPLOAD_BYTES'),
            '415': error('Not an accepted kind, or content that contradicts the extension'),
            '422': error('File name over 255 characters'),
          },
          {
            requestBody: {
              required: true,
              content: {
                'multipart/form-data': {
                  schema: {
                    type: 'object',
                    required: ['file', 'studypetitionid'],
                    properties: { studypetitionid: { type: 'integer' }, file: { type: 'string', format: 'binary' } },
                  },
                },
              },
            },
          },
        ),
      },
      '/uploads': {
        post: operation(
          'Create a resumable upload (tus 1.0 creation, creation-with-upload); checked before any byte is stored. docs/api.md',
          {
            '201': ok('Created: Location, Upload-Expires; with every byte sent, also Portal-File-Id (the new file)'),
            '400': error('No Upload-Length, bad Upload-Metadata, no filename or studypetitionid'),
            '403': error('Read-only role'),
            '413': error('Upload-Length over MAX_UPLOAD_BYTES'),
            '415': error('Empty, or first bytes that are not what the name says'),
            '422': error('File name over 255 characters'),
            '429': error('Too many unfinished uploads (UPLOAD_MAX_OPEN_PER_USER)'),
          },
          {
            parameters: [
              TUS_RESUMABLE,
              tusHeader('Upload-Length', 'Size in bytes'),
              tusHeader('Upload-Metadata', 'filename and studypetitionid (base64 values); delivery and relativePath kept'),
            ],
          },
        ),
      },
      '/uploads/{uploadId}': {
        head: operation('Where an upload of yours stands: Upload-Offset, Upload-Length', { '200': ok('Upload-Offset') }, {
          parameters: [{ name: 'uploadId', in: 'path', required: true, schema: { type: 'string' } }, TUS_RESUMABLE],
        }),
        patch: operation(
          'Send the next bytes (application/offset+octet-stream from Upload-Offset); the last byte commits the file',
          {
            '204': ok('New Upload-Offset; after the last byte also Portal-File-Id (the new file)'),
            '403': error('Read-only role (at the last byte)'),
            '408': error('No byte for UPLOAD_IDLE_TIMEOUT_SECONDS; what arrived is kept'),
            '409': error('Upload-Offset is not where the upload stands'),
            '413': error('More bytes than Upload-Length'),
            '415': error('First bytes that are not what the name says; the upload is removed'),
          },
          {
            parameters: [
              { name: 'uploadId', in: 'path', required: true, schema: { type: 'string' } },
              TUS_RESUMABLE,
              tusHeader('Upload-Offset', 'The byte this chunk starts at'),
            ],
            requestBody: { required: true, content: { 'application/offset+octet-stream': { schema: { type: 'string', format: 'binary' } } } },
          },
        ),
        delete: operation('Cancel an upload of yours: every byte of it is removed', { '204': ok('Removed') }, {
          parameters: [{ name: 'uploadId', in: 'path', required: true, schema: { type: 'string' } }, TUS_RESUMABLE],
        }),
      },
      '/download-study-petitions-files/{id}': {
        get: operation(
          'Download the file as uploaded (single byte ranges, ETag)',
          { '200': ok('The bytes'), '206': ok('One range'), '304': ok('Not modified'), '416': error('Range not satisfiable') },
          { parameters: [idParam('id')] },
        ),
      },
      '/study-petitions-files-delete/{id}': {
        put: operation('Soft-delete a file (cancels its processing)', { '200': ok('Deleted', list(ZProjectFile)), '403': error('Read-only role') }, {
          parameters: [idParam('id')],
        }),
      },
      '/study-petitions-files/{fileId}/contents': {
        get: operation('What processing found: entries (paginated) and the study → series tree', {
          '200': ok('Contents', json(z.object({ data: ZFileContents }))),
          '400': error('Bad paging parameters'),
        }, {
          parameters: [
            idParam('fileId'),
            { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
            { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500, default: 100 } },
            { name: 'kind', in: 'query', schema: { type: 'string', enum: ['dicom', 'other', 'skipped'] } },
          ],
        }),
      },
      '/study-petitions-files/{fileId}/contents/{entryId}/download': {
        get: operation('Download one extracted entry', { '200': ok('The bytes'), '206': ok('One range') }, {
          parameters: [idParam('fileId'), idParam('entryId')],
        }),
      },
      '/health': { get: { summary: 'Liveness', responses: { '200': ok('Up') } } },
      '/ready': { get: { summary: 'Readiness: the database answers', responses: { '200': ok('Ready'), '503': error('Database unreachable') } } },
      '/openapi.json': { get: { summary: 'This document', responses: { '200': ok('OpenAPI 3.0') } } },
    },
  };
}
