// Ids in paths and queries: anything that is not a plain positive integer cannot name a row,
// so it answers 404 like any other id that does not exist.
import { z } from 'zod';
import { notFound } from '../errors/app-error.js';

const MAX_ID = 2_147_483_647;
const ID_PATTERN = /^[1-9][0-9]{0,9}$/;

export function parseId(value: unknown, what = 'Resource'): number {
  if (typeof value !== 'string' || !ID_PATTERN.test(value)) throw notFound(`${what} not found`);
  const id = Number(value);
  if (id > MAX_ID) throw notFound(`${what} not found`);
  return id;
}

/**
 * The id fields of route schemas and what each names. The validator (validate.ts) answers a field
 * found here that cannot be read with 404 '<what> not found', like parseId, instead of a 400.
 */
export const idFields = z.registry<{ what: string }>();

/** A route's id in a path or a query: the text of a positive integer, handed to the handler as a number. */
export function zId(what: string) {
  const id = z
    .string()
    .regex(ID_PATTERN)
    .transform(Number)
    .refine((value) => value <= MAX_ID);
  idFields.add(id, { what });
  return id;
}

/** What the id field `key` of an object schema names, if it is one (optional or not). */
export function idFieldOf(schema: z.ZodType, key: PropertyKey | undefined): string | undefined {
  if (!(schema instanceof z.ZodObject) || typeof key !== 'string') return undefined;
  let field: unknown = (schema.shape as Record<string, unknown>)[key];
  while (field instanceof z.ZodOptional || field instanceof z.ZodDefault) field = field.unwrap();
  return field instanceof z.ZodType ? idFields.get(field)?.what : undefined;
}
