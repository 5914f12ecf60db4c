// The single validation hook: the first issue becomes a 400 naming the field.
import type { ZodError, ZodType, z } from 'zod';
import { badRequest } from '../errors/app-error.js';

export function describeZodError(error: ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'The data sent is not valid';
  const field = issue.path.join('.');
  if (issue.code === 'unrecognized_keys') return `Unknown field: ${issue.keys.join(', ')}`;
  if (issue.code === 'invalid_type' && issue.input === undefined) return `${field} is required`;
  return field ? `${field}: ${issue.message}` : issue.message;
}

export function parse<T extends ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw badRequest(describeZodError(result.error));
  return result.data;
}
