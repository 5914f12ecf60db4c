import { describe, expect, it } from 'vitest';
import { openApiDocument } from './openapi.js';

describe('the OpenAPI description', () => {
  it('describes every call of spec §7 and the additions, with schemas from the contract', () => {
    const doc = openApiDocument() as { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>> };
    for (const path of ['/login', '/company/{id}', '/password_reset', '/study-petitions', '/study-petitions/{id}', '/study-petitions-delete/{id}', '/study-petitions-files', '/upload-study-petitions-files', '/download-study-petitions-files/{id}', '/study-petitions-files-delete/{id}', '/logout', '/me', '/study-petitions-files/{fileId}/contents']) {
      expect(doc.paths[path], path).toBeDefined();
    }
    const login = JSON.stringify(doc.paths['/login']!.post!.responses['200']!.content!['application/json']!.schema);
    expect(login).toContain('company_id');
    const file = JSON.stringify(doc.paths['/study-petitions-files']!.get!.responses['200']);
    expect(file).toContain('sha256');
    expect(file).toContain('processing');
  });
});
