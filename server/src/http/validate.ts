// The single validation hook: every route's params, query and body are checked by its zod schemas
// (the type provider gives handlers their parsed types), and the first issue becomes the answer:
// 404 '<what> not found' for an id that cannot name anything (params.ts), else a 400 naming the field.
import type { FastifySchemaCompiler } from 'fastify';
import type { z, ZodError, ZodType } from 'zod';
import { badRequest, notFound, type AppError } from '../errors/app-error.js';
import { idFieldOf } from './params.js';

/** The first problem in words; `input` (what was validated) tells a missing field from a wrong one. */
export function describeZodError(error: ZodError, input?: unknown): string {
  const issue = error.issues[0];
  if (!issue) return 'The data sent is not valid';
  const field = issue.path.join('.');
  if (issue.code === 'unrecognized_keys') return `Unknown field: ${issue.keys.join(', ')}`;
  if (issue.code === 'invalid_type') {
    // zod does not report the value it refused: read it from what was validated where the caller
    // has it, else from zod's own message. A query parameter sent twice arrives as a list.
    const value = input === undefined ? undefined : valueAt(input, issue.path);
    const missing = input === undefined ? /received undefined$/.test(issue.message) : value === undefined;
    if (missing) return `${field} is required`;
    if (Array.isArray(value) && issue.expected !== 'array') return `Send ${field} once`;
  }
  return field ? `${field}: ${issue.message}` : issue.message;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

export function parse<T extends ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw badRequest(describeZodError(result.error, value));
  return result.data;
}

function requestError(schema: ZodType, error: ZodError, data: unknown): AppError {
  const what = idFieldOf(schema, error.issues[0]?.path[0]);
  return what ? notFound(`${what} not found`) : badRequest(describeZodError(error, data));
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
    return { error: requestError(schema, result.error, data) };
  };
