// One attempt to deliver one message: the body POSTed as JSON, signed the Standard Webhooks way
// (webhook-id, webhook-timestamp, webhook-signature) with the `standardwebhooks` library, under a
// timeout, connecting only to a public address unless private ones are allowed. Redirects are not
// followed: a receiver that moved must be given its new address.
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { hostOf, isPrivateAddress, PrivateAddressRefused, publicOnlyLookup } from './webhook-address.js';

export interface WebhookMessage {
  url: string;
  /** whsec_… as the endpoint's creator was given it. */
  secret: string;
  /** The same on every attempt, so that a receiver can drop a repeat. */
  messageId: string;
  payload: string;
}

export interface AttemptOptions {
  allowPrivate: boolean;
  timeoutMs: number;
  /** The attempt's time, which the signature covers. */
  now: Date;
  /** The job's: a worker stopping ends the attempt at once. */
  signal?: AbortSignal;
}

export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  /** Why it failed, in words (never the secret, the body or the receiver's answer). */
  error: string | null;
}

const USER_AGENT = 'SecureUploadPortal-Webhooks/1';

export function signedHeaders(message: WebhookMessage, now: Date): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': message.messageId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': new Webhook(message.secret).sign(message.messageId, now, message.payload),
  };
}

export async function attemptDelivery(message: WebhookMessage, options: AttemptOptions): Promise<AttemptResult> {
  const url = new URL(message.url);
  const host = hostOf(url);
  if (!options.allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) {
    return { ok: false, statusCode: null, error: new PrivateAddressRefused(host, host).message };
  }
  const client = url.protocol === 'https:' ? https : http;
  const body = Buffer.from(message.payload);
  return new Promise<AttemptResult>((resolve) => {
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: { ...signedHeaders(message, options.now), 'content-length': String(body.length) },
        signal: options.signal ? AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]) : AbortSignal.timeout(options.timeoutMs),
        // A fresh connection each time: a pooled one could outlive the address check it passed.
        agent: false,
        ...(options.allowPrivate ? {} : { lookup: publicOnlyLookup }),
      },
      (response) => {
        const status = response.statusCode ?? 0;
        // The answer's body is not read: only its status counts.
        response.resume();
        response.on('error', () => undefined);
        if (status >= 200 && status < 300) resolve({ ok: true, statusCode: status, error: null });
        else if (status >= 300 && status < 400) resolve({ ok: false, statusCode: status, error: `The receiver answered ${status}, a redirect; webhooks are not redirected: give the endpoint its final address` });
        else resolve({ ok: false, statusCode: status, error: `The receiver answered ${status}` });
      },
    );
    request.on('error', (err) => resolve({ ok: false, statusCode: null, error: inWords(err, options.timeoutMs) }));
    request.end(body);
  });
}

function inWords(err: Error & { code?: string }, timeoutMs: number): string {
  if (err instanceof PrivateAddressRefused) return err.message;
  if (err.name === 'AbortError' || err.name === 'TimeoutError' || err.code === 'ABORT_ERR') {
    const seconds = Math.round(timeoutMs / 1000);
    return `The receiver did not answer within ${seconds} second${seconds === 1 ? '' : 's'}`;
  }
  switch (err.code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'The receiver’s host name could not be found';
    case 'ECONNREFUSED':
      return 'The receiver refused the connection';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'The receiver closed the connection before answering';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ETIMEDOUT':
      return 'The receiver could not be reached';
  }
  if (err.code && /CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO/.test(err.code)) return 'The receiver’s TLS certificate was not accepted';
  return `The request failed${err.code ? ` (${err.code})` : ''}`;
}
