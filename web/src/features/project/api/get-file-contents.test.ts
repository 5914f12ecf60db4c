import { describe, expect, it } from 'vitest';
import { fakeApi } from '../../../test/fake-api';
import { getFileContents } from './get-file-contents';

const contents = { entries: [], page: { offset: 0, limit: 10, total: 0 }, studies: [] };

describe('getFileContents', () => {
  it.each([
    ['bare', contents],
    ['wrapped in {data}', { data: contents }],
  ])('reads the contents answered %s', async (_shape, body) => {
    const api = fakeApi({ 'GET /study-petitions-files/5/contents': { status: 200, data: body } });
    await expect(getFileContents(5, { offset: 20, limit: 10, kind: 'skipped' })).resolves.toEqual(contents);
    expect(api.calls[0]?.params).toEqual({ offset: 20, limit: 10, kind: 'skipped' });
  });
});
