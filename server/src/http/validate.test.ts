import { describe, expect, it } from 'vitest';
import { z, type ZodType } from 'zod';
import { AppError } from '../errors/app-error.js';
import { zId } from './params.js';
import { validatorCompiler } from './validate.js';

function validate(schema: ZodType, data: unknown): { value?: unknown; error?: { status: number; message: string } } {
  const result = validatorCompiler({ schema, method: 'GET', url: '/', httpPart: 'querystring' })(data) as { value?: unknown; error?: unknown };
  if (result.error === undefined) return { value: result.value };
  expect(result.error).toBeInstanceOf(AppError);
  const error = result.error as AppError;
  return { error: { status: error.status, message: error.message } };
}

describe('the route validator', () => {
  const params = z.object({ fileId: zId('File'), entryId: zId('Entry') });

  it('hands the handler numbers for ids written as plain positive integers', () => {
    expect(validate(params, { fileId: '12', entryId: '2147483647' })).toEqual({ value: { fileId: 12, entryId: 2147483647 } });
  });

  it.each([['abc'], ['0'], ['-1'], ['01'], ['1.5'], ['2147483648'], ['99999999999'], [''], [['1', '2']], [undefined]])(
    'answers an id %j that cannot name anything with 404 naming what was looked for',
    (id) => {
      expect(validate(params, { fileId: id, entryId: '1' })).toEqual({ error: { status: 404, message: 'File not found' } });
      expect(validate(params, { fileId: '1', entryId: id })).toEqual({ error: { status: 404, message: 'Entry not found' } });
    },
  );

  it('reads an optional id only when it is sent', () => {
    const query = z.object({ company_id: zId('Company').optional() });
    expect(validate(query, {})).toEqual({ value: {} });
    expect(validate(query, { company_id: 'x' })).toEqual({ error: { status: 404, message: 'Company not found' } });
  });

  it('answers any other problem with 400 naming the first field at fault', () => {
    const query = z.strictObject({ limit: z.coerce.number().int().max(500), kind: z.enum(['dicom', 'other']).optional() });
    expect(validate(query, { limit: '501' })).toEqual({ error: { status: 400, message: 'limit: Too big: expected number to be <=500' } });
    expect(validate(query, { limit: '1', extra: 'x' })).toEqual({ error: { status: 400, message: 'Unknown field: extra' } });
    expect(validate(z.object({ password: z.string() }), {})).toEqual({ error: { status: 400, message: 'password is required' } });
  });

  it('asks for a query parameter sent twice to be sent once, instead of calling it missing', () => {
    const query = z.object({ iss: z.string().optional(), tags: z.array(z.string()).optional() });
    expect(validate(query, { iss: ['https://a.example', 'https://b.example'] })).toEqual({ error: { status: 400, message: 'Send iss once' } });
    expect(validate(query, { tags: 'x' })).toMatchObject({ error: { status: 400, message: expect.stringMatching(/^tags: /) } });
    expect(validate(query, { iss: 'https://a.example' })).toEqual({ value: { iss: 'https://a.example' } });
  });
});
