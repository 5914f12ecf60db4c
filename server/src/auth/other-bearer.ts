// A bearer that is not a sign-in session (a personal API token, tokens/): asked first, so that
// auth/ need not know how such bearers are made or checked.
import type { FastifyRequest } from 'fastify';
import type { AuthenticatedSession } from './auth.service.js';

export interface OtherBearer {
  /** The session the bearer stands for; undefined when it is not of this kind (then it is a session token). Throws 401/403 in words. */
  authenticate(bearer: string, request: FastifyRequest): Promise<AuthenticatedSession | undefined>;
}
