// /api/v1/me/notifications (a user's e-mails) and /api/v1/admin/webhooks (CompanyAdmin, SysAdmin).
// Access is decided in the services, before anything is read.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  listResponse,
  ZCreatedWebhook,
  ZCreateWebhook,
  ZNotificationPreferences,
  ZUpdateNotificationPreferences,
  ZWebhook,
  ZWebhookDeliveriesList,
  ZWebhookDeliveriesQuery,
  ZWebhooksQuery,
} from '@portal/contract';
import { z } from 'zod';
import { sessionOf } from '../auth/index.js';
import { zId } from '../http/params.js';
import { BAD_REQUEST, errorResponse, FORBIDDEN, NOT_FOUND } from '../http/responses.js';
import type { NotificationPreferences } from './preferences.service.js';
import type { WebhooksAdministration } from './webhooks.service.js';

const WebhookParams = z.object({ id: zId('Webhook') });
const REFUSED = errorResponse('Not valid: the reason, in words');
const actorOf = (request: FastifyRequest) => sessionOf(request).actor;

export function notificationsRoutes(preferences: NotificationPreferences, webhooks: WebhooksAdministration) {
  return (fastify: FastifyInstance) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/me/notifications',
      {
        schema: {
          summary: 'Which events of their projects the signed-in user is e-mailed about, at once or in a daily digest',
          response: { 200: listResponse(ZNotificationPreferences).describe('data[0] is the choice') },
        },
      },
      async (request) => ({ data: [await preferences.get(actorOf(request))] }),
    );

    app.put(
      '/me/notifications',
      {
        schema: {
          summary: 'Choose the e-mails: events, immediate or daily; all_projects (SysUser, SysAdmin) follows every company',
          body: ZUpdateNotificationPreferences,
          response: { 200: listResponse(ZNotificationPreferences).describe('The choice now in force'), 400: BAD_REQUEST, 422: REFUSED },
        },
      },
      async (request) => ({ data: [await preferences.set(actorOf(request), request.body)] }),
    );

    app.get(
      '/admin/webhooks',
      {
        schema: {
          summary: 'Webhook endpoints: a SysAdmin’s of every company and the portal-wide ones, a CompanyAdmin’s of their own company',
          querystring: ZWebhooksQuery,
          response: { 200: listResponse(ZWebhook).describe('By id'), 400: BAD_REQUEST, 403: FORBIDDEN, 404: NOT_FOUND },
        },
      },
      async (request) => ({ data: await webhooks.list(actorOf(request), request.query) }),
    );

    app.post(
      '/admin/webhooks',
      {
        schema: {
          summary: 'Create a webhook endpoint; the answer carries its signing secret, shown this once',
          body: ZCreateWebhook,
          response: { 201: listResponse(ZCreatedWebhook).describe('Created, with its secret'), 400: BAD_REQUEST, 403: FORBIDDEN, 404: NOT_FOUND, 422: REFUSED },
        },
      },
      async (request, reply) => reply.status(201).send({ data: [await webhooks.create(actorOf(request), request.body)] }),
    );

    app.delete(
      '/admin/webhooks/:id',
      {
        schema: {
          summary: 'Delete a webhook endpoint and its log; messages still queued for it are dropped',
          params: WebhookParams,
          response: { 204: z.undefined().describe('Deleted'), 403: FORBIDDEN, 404: NOT_FOUND },
        },
      },
      async (request, reply) => {
        await webhooks.remove(actorOf(request), request.params.id);
        return reply.status(204).send();
      },
    );

    app.get(
      '/admin/webhooks/:id/deliveries',
      {
        schema: {
          summary: 'The endpoint’s log, newest first: each message’s event, status, attempts and last error',
          params: WebhookParams,
          querystring: ZWebhookDeliveriesQuery,
          response: { 200: ZWebhookDeliveriesList.describe('One page of messages'), 400: BAD_REQUEST, 403: FORBIDDEN, 404: NOT_FOUND },
        },
      },
      async (request) => webhooks.deliveries(actorOf(request), request.params.id, request.query),
    );
  };
}
