// Helmet's security headers, with one change: `upgrade-insecure-requests` only where the page was
// itself asked for over https. Sent on plain http (a portal opened as http://host:8080 on a LAN),
// it makes the browser fetch the page's scripts and styles over https from a server that has no
// TLS, and the page stays blank.
import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

const CSP = 'content-security-policy';

export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: {
      directives: {
        // MUI's emotion injects <style> tags at run time.
        'style-src': ["'self'", "'unsafe-inline'"],
        'img-src': ["'self'", 'data:', 'blob:'],
        'upgrade-insecure-requests': null,
      },
    },
  });
  // request.protocol is https on a TLS socket, or behind TRUST_PROXY with X-Forwarded-Proto: https.
  app.addHook('onSend', async (request, reply) => {
    const policy = reply.getHeader(CSP);
    if (request.protocol === 'https' && typeof policy === 'string') reply.header(CSP, `${policy};upgrade-insecure-requests`);
  });
}
