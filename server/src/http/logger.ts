// Structured JSON logs. Secrets never reach them: credentials in headers are redacted, and
// bodies (which carry passwords) are not logged at all.
import { randomUUID } from 'node:crypto';
import type { FastifyServerOptions } from 'fastify';
import type { Config } from '../config/config.js';

export function loggerOptions(config: Pick<Config, 'logLevel'>): FastifyServerOptions['logger'] {
  return {
    level: config.logLevel,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        '*.password',
        '*.old_password',
        '*.new_password',
        '*.token',
      ],
      censor: '[redacted]',
    },
  };
}

/** Accepts a sane incoming X-Request-Id (from a proxy) or makes one. */
export function requestId(req: { headers: Record<string, string | string[] | undefined> }): string {
  const incoming = req.headers['x-request-id'];
  if (typeof incoming === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(incoming)) return incoming;
  return randomUUID();
}
