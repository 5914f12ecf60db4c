// The answers routes declare besides their data: every error is {message} (error-handler.ts),
// answers without a body, and the response headers a caller relies on (Location, Retry-After,
// ETag…), which the OpenAPI document lists (openapi.ts makes `required` a header's own field).
import { ZErrorBody } from '@portal/contract';
import { z } from 'zod';

export interface HeaderSpec {
  description: string;
  /** Sent with every answer of its status (else only where the description says). */
  required?: boolean;
  schema?: { type: 'string' | 'integer'; format?: string };
}
export type Headers = Record<string, HeaderSpec>;

/** A response's headers, as @fastify/swagger reads them from a response schema's `headers`. */
export function documentedHeaders(headers: Headers): Record<string, object> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, spec]) => [
      name,
      { ...(spec.schema ?? { type: 'string' }), description: spec.description, ...(spec.required ? { 'x-required': true } : {}) },
    ]),
  );
}

/** An error a route may answer, with what it means to the caller (the document's description). */
export const errorResponse = (description: string, headers?: Headers) => {
  const schema = ZErrorBody.describe(description);
  return headers ? schema.meta({ headers: documentedHeaders(headers) }) : schema;
};

/** An answer without a body (a HEAD, a 204, a redirect), with its headers. */
export const noBody = (description: string, headers?: Headers) => {
  const schema = z.undefined().describe(description);
  return headers ? schema.meta({ headers: documentedHeaders(headers) }) : schema;
};

export const RETRY_AFTER: Headers = { 'Retry-After': { description: 'Seconds to wait before trying again', required: true, schema: { type: 'integer' } } };
export const LOCATION: Headers = { Location: { description: 'Where to go', required: true } };

export const NOT_FOUND = errorResponse('Not found, or belongs to another company');
export const BAD_REQUEST = errorResponse('Malformed input: the first problem, naming the field');
export const FORBIDDEN = errorResponse('The role may not do this');
