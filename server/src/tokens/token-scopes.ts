// What an API token may call, by scope: an allow-list of the API's routes, written as the OpenAPI
// document names them (`GET /study-petitions/{id}`, relative to /api/v1). A route not listed is
// refused to every token, so a new route is closed to tokens until it is added here on purpose;
// server/test/api/tokens.test.ts walks every registered route against this list.
import type { TApiTokenScope } from '@portal/contract';

/** Looking and downloading: projects, files, their contents, studies, DICOMweb QIDO-RS and WADO-RS. */
const READ = [
  'GET /study-petitions',
  'GET /study-petitions/{id}',
  'GET /study-petitions-files',
  'GET /download-study-petitions-files/{id}',
  'GET /study-petitions-files/{fileId}/contents',
  'GET /study-petitions-files/{fileId}/contents/{entryId}/download',
  'GET /study-petitions/{id}/studies',
  // Every QIDO-RS search and WADO-RS retrieval (metadata, instances, frames, bulk data).
  'GET /study-petitions/{id}/dicomweb/*',
] as const;

/** Sending: the multipart upload, tus, deliveries (with their bundles, which travel by tus), STOW-RS. */
const UPLOAD = [
  ...READ,
  'GET /upload-settings',
  'POST /upload-study-petitions-files',
  'POST /uploads',
  'HEAD /uploads/{id}',
  'PATCH /uploads/{id}',
  'DELETE /uploads/{id}',
  'POST /deliveries',
  'GET /deliveries/{id}',
  'POST /deliveries/{id}/complete',
  // Asked before sending, so that a file the project holds already can be skipped (issue 36).
  'POST /study-petitions/{id}/files/duplicates',
  'POST /study-petitions/{id}/dicomweb/studies',
  'POST /study-petitions/{id}/dicomweb/studies/{study}',
  // A script applies the project's de-identification before sending, as the web app does (issue 37, item 2).
  'GET /study-petitions/{id}/deidentification',
  'GET /study-petitions/{id}/deidentification/key',
] as const;

export const TOKEN_ROUTES: Record<TApiTokenScope, readonly string[]> = { read: READ, upload: UPLOAD };

/** `GET /study-petitions/{id}` for Fastify's `/api/v1/study-petitions/:id`. */
export function routeName(method: string, url: string, apiPrefix: string): string {
  const path = url.startsWith(apiPrefix) ? url.slice(apiPrefix.length) : url;
  return `${method} ${path.replace(/:(\w+)/g, '{$1}')}`;
}

function listed(list: readonly string[], route: string): boolean {
  return list.some((allowed) => (allowed.endsWith('/*') ? route.startsWith(allowed.slice(0, -1)) : route === allowed));
}

/** Whether a token of `scope` may call `route`; a HEAD is allowed wherever its GET is. */
export function scopeAllows(scope: TApiTokenScope, route: string): boolean {
  const list = TOKEN_ROUTES[scope];
  return listed(list, route) || (route.startsWith('HEAD ') && listed(list, route.replace(/^HEAD/, 'GET')));
}
