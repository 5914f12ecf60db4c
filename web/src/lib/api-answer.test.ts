import { listResponse, ZProject } from '@portal/contract';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../test/fake-api';
import { aProject } from '../test/fixtures';
import { api, UNREADABLE_ANSWER, UnreadableAnswerError } from './api-answer';
import { formatUserError } from './error-mapping';

const ZProjects = listResponse(ZProject);

/** The call's error, or a failure of the test if it succeeded. */
async function failureOf(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => expect.fail('the call should have failed'),
    (error: unknown) => error,
  );
}

describe('the API edge', () => {
  it("hands over the answer as the contract reads it, without fields it does not name", async () => {
    fakeApi({ 'GET /study-petitions': { status: 200, data: { data: [{ ...aProject(), internal_column: 'x' }] } } });
    expect(await api.get(ZProjects, '/study-petitions')).toEqual({ data: [aProject()] });
  });

  it.each([
    ['a field of another type', { data: [{ ...aProject(), id: '1' }] }],
    ['a missing field', { data: [{ id: 1, name: 'Brain MRI' }] }],
    ['a list that is not one', { data: aProject() }],
    ["a proxy's HTML page answered with 200", '<html><body>Bad gateway</body></html>'],
    ['no body at all', undefined],
  ])('turns %s into the words a user reads, never the schema’s', async (_label, body) => {
    fakeApi({ 'POST /study-petitions': { status: 200, data: body } });
    const error = await failureOf(api.post(ZProjects, '/study-petitions', { name: 'x' }));
    expect(error).toBeInstanceOf(UnreadableAnswerError);
    // What the screens show (spec §8's 'message: details'), with nothing of zod in it.
    const shown = formatUserError(error);
    expect(shown).toBe(`Unexpected Error: ${UNREADABLE_ANSWER}`);
    expect(shown).not.toMatch(/\b(invalid|expected|received|zod)\b/i);
  });

  it('tells the console which call answered what, for whoever looks into it', async () => {
    fakeApi({ 'PUT /study-petitions/1': { status: 200, data: { data: [{ id: 1 }] } } });
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const error = await failureOf(api.put(ZProjects, '/study-petitions/1', {}));
      expect(log).toHaveBeenCalledWith('Unreadable answer', 'PUT /study-petitions/1', expect.anything());
      expect((error as UnreadableAnswerError).request).toBe('PUT /study-petitions/1');
      expect((error as UnreadableAnswerError).cause).toBeDefined();
    } finally {
      log.mockRestore();
    }
  });

  it('leaves a refusal by status to the usual mapping', async () => {
    fakeApi({ 'GET /study-petitions': { status: 503, data: '<html>down</html>' } });
    const error = await failureOf(api.get(ZProjects, '/study-petitions'));
    expect(error).not.toBeInstanceOf(UnreadableAnswerError);
    expect(formatUserError(error)).toBe('Service Unavailable: The service is temporarily offline');
  });
});
