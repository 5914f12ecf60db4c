// Logs: JSON lines for a log collector, or readable lines when a person watches a terminal
// (LOG_FORMAT decides; `auto` looks at whether standard output is one). Secrets never reach them:
// credentials in headers are redacted, bodies (which carry passwords) are not logged at all, and
// the ticket of a download link (its path is its authorisation) is cut from every logged URL.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { pino, type LoggerOptions } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from '../config/config.js';

export function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>, isTerminal = process.stdout.isTTY === true): FastifyBaseLogger {
  const readable = config.logFormat === 'pretty' || (config.logFormat === 'auto' && isTerminal);
  if (!readable) return pino(loggerOptions(config));
  // In the main thread and synchronous: an operator's terminal, not a hot path, and a crash's last
  // lines must not be lost in a transport's buffer.
  const stream = pretty({ colorize: isTerminal, sync: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' });
  return pino(loggerOptions(config), stream);
}

function loggerOptions(config: Pick<Config, 'logLevel'>): LoggerOptions {
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
        '*.client_secret',
        '*.code',
      ],
      censor: '[redacted]',
    },
    // Fastify's own request serializer, with the URL redacted.
    serializers: { req: serializeRequest },
  };
}

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  headers?: Record<string, string | string[] | undefined>;
  socket?: { remotePort?: number | undefined } | null;
}

function serializeRequest(req: LoggedRequest) {
  return {
    method: req.method,
    url: redactUrl(req.url),
    version: req.headers?.['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/**
 * A download link's ticket (`/api/v1/dl/<ticket>`, files/download-links.service.ts) and the code and
 * state an identity provider sends back to `/api/v1/sso/callback` never reach a log.
 */
export function redactUrl(url: string): string {
  return url.replace(/\/dl\/[^/?#]*/g, '/dl/[redacted]').replace(/(\/sso\/callback)\?[^#]*/g, '$1?[redacted]');
}

/** Accepts a sane incoming X-Request-Id (from a proxy) or makes one. */
export function requestId(req: { headers: Record<string, string | string[] | undefined> }): string {
  const incoming = req.headers['x-request-id'];
  if (typeof incoming === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(incoming)) return incoming;
  return randomUUID();
}
