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
    const files = doc.paths['/study-petitions-files']!.get! as unknown as { parameters: { name: string; schema: { enum?: string[] } }[] };
    expect(files.parameters.map((p) => p.name)).toEqual(['study_petition_id', 'q', 'sort', 'order', 'page', 'per_page', 'status']);
    expect(files.parameters.find((p) => p.name === 'sort')!.schema.enum).toEqual(['file', 'filesize', 'created_at', 'updated_at']);
    const studies = JSON.stringify(doc.paths['/study-petitions/{id}/studies']!.get!.responses['200']);
    for (const field of ['study_instance_uid', 'patient_name', 'modalities', 'series_instance_uid', 'sources', 'per_page', 'total']) expect(studies).toContain(field);
  });
});
