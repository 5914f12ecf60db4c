// GET /api/v1/metrics: the Prometheus text format, for a SysAdmin's session or the METRICS_TOKEN.
import { ROLES } from '@portal/contract';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { forbidden, unauthorized } from '../errors/app-error.js';
import { errorResponse, FORBIDDEN } from '../http/responses.js';
import type { Metrics } from './metrics.js';
import { bearerToken, isMetricsToken } from './scrape-token.js';

/** What the route needs of sign-in: a token's session and its role (AuthService). */
export interface SessionCheck {
  authenticate(token: string): Promise<{ actor: { role: number } }>;
}

export function metricsRoutes(metrics: Metrics, sessions: SessionCheck, metricsToken: string | undefined) {
  return (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/metrics',
      {
        // The authentication hook would refuse the METRICS_TOKEN, which is no session: this route
        // checks its bearer itself, and documents it like every other route.
        config: { public: true },
        schema: {
          summary: 'Metrics in the Prometheus text format (a SysAdmin, or the METRICS_TOKEN bearer)',
          security: [{ bearer: [] }],
          response: {
            200: {
              description: 'The Prometheus text exposition format 0.0.4',
              content: { 'text/plain': { schema: z.string() } },
            },
            401: errorResponse('No session, or an expired, revoked or unknown token (and not the METRICS_TOKEN)'),
            403: FORBIDDEN,
          },
        },
      },
      async (request, reply) => {
        const token = bearerToken(request.headers.authorization);
        if (token === undefined) throw unauthorized('Authentication required');
        if (!isMetricsToken(token, metricsToken)) {
          const { actor } = await sessions.authenticate(token);
          if (actor.role !== ROLES.SysAdmin) throw forbidden();
        }
        return reply.type(metrics.contentType).send(await metrics.exposition());
      },
    );
  };
}
