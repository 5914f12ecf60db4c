// Every answer is counted by its route's pattern ('/api/v1/study-petitions/:id'), never by the URL
// asked for: ids, tickets and tus upload ids would make a series per object and leak them.
import type { FastifyInstance } from 'fastify';
import type { Metrics } from './metrics.js';

/** The route label of requests no route matched (the 404 answer), whatever they asked for. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Counts answers, and sign-in failures and throttles by their answers: a sign-in answers 401 for
 * every failure and 429 when the throttle refused it; a password change answers 429 from the same
 * throttle (its 422 mixes a wrong current password with a weak new one, so it is not a failure here).
 */
export function registerHttpMetrics(app: FastifyInstance, metrics: Metrics, apiPrefix: string): void {
  const login = `${apiPrefix}/login`;
  const passwordReset = `${apiPrefix}/password_reset`;
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    const status = reply.statusCode;
    metrics.httpRequest(request.method, route, status, reply.elapsedTime / 1000);
    if (request.method === 'POST' && route === login) {
      if (status === 401) metrics.loginFailed();
      if (status === 429) metrics.throttled('login');
    }
    if (request.method === 'POST' && route === passwordReset && status === 429) metrics.throttled('password_reset');
    done();
  });
}
