import { describe, expect, it } from 'vitest';
import { fakeApi } from '../../../test/fake-api';
import { UNREADABLE_ANSWER } from '../../../lib/api-answer';
import { getFileContents } from './get-file-contents';

const contents = { entries: [], page: { offset: 0, limit: 10, total: 0 }, studies: [] };

describe('getFileContents', () => {
  it('reads the contents the server sends, wrapped in {data}, and asks for the page', async () => {
    const api = fakeApi({ 'GET /study-petitions-files/5/contents': { status: 200, data: { data: contents } } });
    await expect(getFileContents(5, { offset: 20, limit: 10, kind: 'skipped' })).resolves.toEqual(contents);
    expect(api.calls[0]?.params).toEqual({ offset: 20, limit: 10, kind: 'skipped' });
  });

  it.each([
    ['the bare contents (no {data})', contents],
    ['contents without their page', { data: { entries: [], studies: [] } }],
    ['an entry whose size is text', { data: { ...contents, entries: [{ id: 1, path: 'a', size: '5', sha256: null, kind: 'other', reason: null, dicom: null }] } }],
  ])('refuses %s in words instead of showing something wrong', async (_label, body) => {
    fakeApi({ 'GET /study-petitions-files/5/contents': { status: 200, data: body } });
    await expect(getFileContents(5, { offset: 0, limit: 10 })).rejects.toThrow(UNREADABLE_ANSWER);
  });
});
