// The single validation hook: every route's params, query and body are checked by its zod schemas
// (the type provider gives handlers their parsed types), and the first issue becomes the answer:
// 404 '<what> not found' for an id that cannot name anything (params.ts), else a 400 naming the field.
import type { FastifySchemaCompiler } from 'fastify';
import type { z, ZodError, ZodType } from 'zod';
import { badRequest, notFound, type AppError } from '../errors/app-error.js';
import { idFieldOf } from './params.js';

export function describeZodError(error: ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'The data sent is not valid';
  const field = issue.path.join('.');
  if (issue.code === 'unrecognized_keys') return `Unknown field: ${issue.keys.join(', ')}`;
  // zod leaves the input out of its issues: its own message tells a missing value from a wrong one.
  if (issue.code === 'invalid_type' && (issue.input === undefined && /received undefined$/.test(issue.message))) return `${field} is required`;
  return field ? `${field}: ${issue.message}` : issue.message;
}

export function parse<T extends ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw badRequest(describeZodError(result.error));
  return result.data;
}

function requestError(schema: ZodType, error: ZodError): AppError {
  const what = idFieldOf(schema, error.issues[0]?.path[0]);
  return what ? notFound(`${what} not found`) : badRequest(describeZodError(error));
}

/**
 * Fastify's validator compiler for zod schemas. The error returned is an AppError, which Fastify
 * passes to the error handler as it is, so the answer is the same as a handler's own refusal.
 */
export const validatorCompiler: FastifySchemaCompiler<ZodType> =
  ({ schema }) =>
  (data) => {
    const result = schema.safeParse(data);
    if (result.success) return { value: result.data };
    return { error: requestError(schema, result.error) };
  };
