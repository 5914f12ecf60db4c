// Ids in paths and queries: anything that is not a plain positive integer cannot name a row,
// so it answers 404 like any other id that does not exist.
import { notFound } from '../errors/app-error.js';

const MAX_ID = 2_147_483_647;

export function parseId(value: unknown, what = 'Resource'): number {
  if (typeof value !== 'string' || !/^[1-9][0-9]{0,9}$/.test(value)) throw notFound(`${what} not found`);
  const id = Number(value);
  if (id > MAX_ID) throw notFound(`${what} not found`);
  return id;
}

export function idParam(params: unknown, what?: string): number {
  const id = (params as Record<string, unknown> | null)?.id;
  return parseId(id, what);
}
